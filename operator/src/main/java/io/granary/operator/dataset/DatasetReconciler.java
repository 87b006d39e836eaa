package io.granary.operator.dataset;

import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.client.MetadataClient;
import io.granary.operator.config.OperatorConfig;
import io.granary.operator.dataload.DataLoadResource;
import io.granary.operator.events.GranaryEvents;
import io.granary.operator.granary.GranaryCalls;
import io.granary.operator.status.Condition;
import io.granary.operator.status.Conditions;
import io.granary.operator.status.ResourceEvents;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Makes each Dataset's Granary dataset, its volume and claim, and keeps its status: phase, files, size and cache
 * from Granary, a {@code Ready} condition that names what is wrong. Deleting a Dataset deletes its DataLoads, its
 * claim and volume, and the Granary dataset with its cache (the finalizer), unless the Granary dataset was never
 * the resource's own.
 */
@Singleton  // not a client proxy: the SDK reads the resource type off the class
public class DatasetReconciler implements Reconciler<DatasetResource>, Cleaner<DatasetResource> {

    /** On a Granary dataset the operator made: the uid of the Dataset it stands for. */
    public static final String RESOURCE_UID_LABEL = "granary.io/resource-uid";
    /** On a Granary dataset the operator made: {@code <namespace>.<name>} of its Dataset, for people. */
    public static final String RESOURCE_LABEL = "granary.io/resource";

    private static final Logger LOG = Logger.getLogger(DatasetReconciler.class);
    private static final Duration WHILE_LISTED = Duration.ofSeconds(2);
    private static final Duration IN_USE = Duration.ofSeconds(10);

    private final MetadataClient metadata;
    private final GranaryEvents events;
    private final OperatorConfig config;

    DatasetReconciler(@RestClient MetadataClient metadata, GranaryEvents events, OperatorConfig config) {
        this.metadata = metadata;
        this.events = events;
        this.config = config;
    }

    @Override
    public List<EventSource<?, DatasetResource>> prepareEventSources(EventSourceContext<DatasetResource> context) {
        return List.of(events.newDatasetSource());
    }

    @Override
    public UpdateControl<DatasetResource> reconcile(DatasetResource resource, Context<DatasetResource> context) {
        List<Condition> before = resource.getStatus() == null ? null : resource.getStatus().conditions();
        UpdateControl<DatasetResource> control = converge(resource, context);
        ResourceEvents.readyChanged(context.getClient(), resource, before, resource.getStatus() == null ? null
                : resource.getStatus().conditions());
        return control;
    }

    private UpdateControl<DatasetResource> converge(DatasetResource resource, Context<DatasetResource> context) {
        String granaryName;
        DatasetSpec desired;
        try {
            granaryName = GranaryNames.of(resource.getMetadata().getNamespace(), resource.getMetadata().getName());
            desired = desired(resource, granaryName).validate();
        } catch (ValidationException e) {
            // The schema lets through what only Granary's rules refuse (a name too long once joined...).
            String field = e.field().startsWith("metadata.") ? e.field() : "spec." + e.field();
            return notReady(resource, null, "InvalidSpec", field + ": " + e.detail(), null);
        }
        Optional<DatasetResource> elder = context.getPrimaryCache().list()
                .filter(other -> !other.getMetadata().getUid().equals(resource.getMetadata().getUid()))
                .filter(other -> granaryName.equals(granaryNameOrNull(other)) && older(other, resource))
                .findFirst();
        if (elder.isPresent()) {
            return notReady(resource, granaryName, "NameTaken", "the Dataset " + elder.get().getMetadata()
                    .getNamespace() + "/" + elder.get().getMetadata().getName() + " maps to the same Granary "
                    + "dataset '" + granaryName + "': rename one of them", null);
        }
        for (int i = 0; i < desired.mounts().size(); i++) {
            String ref = desired.mounts().get(i).credentialsRef();
            if (ref == null || ref.isBlank()) {
                continue;
            }
            Secret secret = context.getClient().secrets().inNamespace(config.granaryNamespace()).withName(ref).get();
            if (secret == null) {
                return notReady(resource, granaryName, "CredentialsNotFound", "spec.mounts[" + i
                        + "].credentialsRef: no Secret '" + ref + "' in namespace " + config.granaryNamespace()
                        + ", where Granary's services read it", config.resync());
            }
            if (!StoreCredentials.allow(secret, resource.getMetadata().getNamespace())) {
                return notReady(resource, granaryName, "CredentialsNotAllowed", "spec.mounts[" + i
                        + "].credentialsRef: the Secret '" + ref + "' does not list namespace "
                        + resource.getMetadata().getNamespace() + " in its annotation "
                        + StoreCredentials.NAMESPACES_ANNOTATION, config.resync());
            }
        }
        events.watchDataset(granaryName, ResourceID.fromResource(resource));

        Optional<Dataset> found = metadata.findDataset(granaryName);
        boolean adopted = false;
        if (found.isPresent() && !ours(found.get(), resource)) {
            if (!resource.adopts()) {
                return notReady(resource, granaryName, "NotAdopted", "a Granary dataset '" + granaryName
                        + "' exists that this Dataset did not make: label the Dataset " + DatasetResource.ADOPT_LABEL
                        + "=true to take it over (deleting the Dataset then deletes it), or rename the Dataset",
                        config.resync());
            }
            adopted = true;
        }
        Dataset dataset;
        try {
            dataset = found.orElseGet(() -> create(desired));
        } catch (ValidationException e) {
            return notReady(resource, granaryName, "InvalidSpec", e.detail(), null);
        }
        // The CRD refuses a changed spec (CEL); where that rule is not enforced, the change is said, not lost.
        String differs = differs(dataset.spec(), desired);
        String claimTaken = ensureVolumes(context.getClient(), resource, granaryName);
        if (claimTaken != null) {
            return notReady(resource, granaryName, "ClaimTaken", claimTaken, config.resync());
        }
        return UpdateControl.patchStatus(withStatus(resource, status(resource, granaryName, dataset, adopted, differs)))
                .rescheduleAfter(dataset.status().phase() == DatasetPhase.PENDING ? WHILE_LISTED : config.resync());
    }

    @Override
    public ErrorStatusUpdateControl<DatasetResource> updateErrorStatus(DatasetResource resource,
                                                                       Context<DatasetResource> context,
                                                                       Exception e) {
        List<Condition> before = resource.getStatus() == null ? null : resource.getStatus().conditions();
        boolean unreachable = GranaryCalls.unreachable(e);
        LOG.debugf(e, "Dataset %s/%s not reconciled", resource.getMetadata().getNamespace(),
                resource.getMetadata().getName());
        DatasetResourceStatus known = resource.getStatus();
        resource.setStatus(DatasetResourceStatus.notReady(known, null,
                Conditions.notReady(known == null ? null : known.conditions(), resource,
                        unreachable ? "GranaryUnreachable" : "ReconcileFailed",
                        (unreachable ? "Granary could not be reached; retrying with backoff: " : "")
                                + GranaryCalls.detail(e)),
                resource.getMetadata().getGeneration()));
        ResourceEvents.readyChanged(context.getClient(), resource, before, resource.getStatus().conditions());
        return ErrorStatusUpdateControl.patchStatus(resource);
    }

    @Override
    public DeleteControl cleanup(DatasetResource resource, Context<DatasetResource> context) {
        KubernetesClient client = context.getClient();
        String namespace = resource.getMetadata().getNamespace();
        // Its DataLoads go first (their finalizers cancel their loads); owner references would do it in a cluster
        // with a garbage collector, this does it in any.
        client.resources(DataLoadResource.class).inNamespace(namespace).list().getItems().stream()
                .filter(load -> load.getSpec() != null && resource.getMetadata().getName()
                        .equals(load.getSpec().dataset()))
                .forEach(load -> client.resource(load).delete());
        String granaryName = granaryNameOrNull(resource);
        // Only what this resource made: a claim of its name it found (ClaimTaken), the volume and Granary dataset of
        // an older Dataset of the same Granary name (NameTaken) are not its own.
        PersistentVolumeClaim claim = client.persistentVolumeClaims().inNamespace(namespace)
                .withName(resource.getMetadata().getName()).get();
        if (claim != null && DatasetVolumes.ownedBy(claim, resource)) {
            client.resource(claim).delete();
            if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim.getMetadata().getName())
                    .get() != null) {
                // pvc-protection holds a claim while pods use it: the dataset stays until they are gone.
                return DeleteControl.noFinalizerRemoval().rescheduleAfter(IN_USE.toMillis());
            }
        }
        if (granaryName == null) {
            return DeleteControl.defaultDelete();
        }
        PersistentVolume volume = client.persistentVolumes().withName(DatasetVolumes.volumeName(granaryName)).get();
        if (volume != null && DatasetVolumes.claimedBy(volume, resource)) {
            client.resource(volume).delete();
        }
        Optional<Dataset> found = metadata.findDataset(granaryName);
        boolean adopted = resource.getStatus() != null && Boolean.TRUE.equals(resource.getStatus().adopted());
        if (found.isPresent() && (ours(found.get(), resource) || adopted && resource.adopts())) {
            try {
                metadata.delete(null, granaryName);  // drops its blocks from every worker
            } catch (RuntimeException e) {
                if (!GranaryCalls.status(e, 404)) {
                    throw e;  // kept with its finalizer, and tried again
                }
            }
            events.forgetDataset(granaryName);
            LOG.infof("Dataset %s/%s deleted: Granary dataset %s and its cache are gone", namespace,
                    resource.getMetadata().getName(), granaryName);
        }
        return DeleteControl.defaultDelete();
    }

    private Dataset create(DatasetSpec desired) {
        try {
            return metadata.create(null, desired);
        } catch (RuntimeException e) {
            if (GranaryCalls.status(e, 409)) {
                // Made meanwhile (the CLI, or S3): the next reconcile finds it and asks whose it is.
                throw new IllegalStateException("a Granary dataset '" + desired.name() + "' was made meanwhile", e);
            }
            if (GranaryCalls.status(e, 400)) {  // the problem body names the field
                throw new ValidationException("spec", GranaryCalls.detail(e));
            }
            throw e;
        }
    }

    /** Makes the volume and claim, or says why it cannot (a claim of the name that is not this resource's). */
    private String ensureVolumes(KubernetesClient client, DatasetResource resource, String granaryName) {
        PersistentVolumeClaim claim = DatasetVolumes.claim(resource, granaryName);
        PersistentVolumeClaim held = client.persistentVolumeClaims().inNamespace(claim.getMetadata().getNamespace())
                .withName(claim.getMetadata().getName()).get();
        if (held != null && !DatasetVolumes.ownedBy(held, resource)) {
            return "a PersistentVolumeClaim '" + claim.getMetadata().getName() + "' that this Dataset did not make "
                    + "is in the namespace: rename one of them (the dataset is served, but not as a claim)";
        }
        PersistentVolume volume = DatasetVolumes.volume(resource, granaryName, config.fuseRoot(),
                config.cacheNodeLabel());
        PersistentVolume existing = client.persistentVolumes().withName(volume.getMetadata().getName()).get();
        if (existing == null) {
            client.resource(volume).create();
        }
        if (held == null) {
            held = client.resource(claim).create();
        }
        if (existing != null && DatasetVolumes.boundToAnother(existing, held)) {
            // The claim was deleted and made again: the Released volume still names the old one, and would never
            // bind the new. Its claim reference is made to name the claim as it is now.
            client.persistentVolumes().withName(existing.getMetadata().getName())
                    .edit(pv -> DatasetVolumes.rebound(pv));
        }
        return null;
    }

    static DatasetSpec desired(DatasetResource resource, String granaryName) {
        DatasetResourceSpec spec = Objects.requireNonNullElseGet(resource.getSpec(),
                () -> new DatasetResourceSpec(null, null, null, null, null, null, null));
        List<Mount> mounts = spec.mounts().stream()
                .map(m -> new Mount(m.uri(), m.name(), m.options(), m.credentialsRef())).toList();
        Map<String, String> labels = new HashMap<>();
        labels.put(RESOURCE_UID_LABEL, resource.getMetadata().getUid());
        labels.put(RESOURCE_LABEL, resource.getMetadata().getNamespace() + "." + resource.getMetadata().getName());
        return new DatasetSpec(granaryName, mounts, spec.blockSize(), spec.replicas(), spec.nodeSelector(),
                spec.metadataTtl(), spec.readOnly(), null, spec.cacheShare(), labels);
    }

    private static boolean ours(Dataset dataset, DatasetResource resource) {
        return resource.getMetadata().getUid().equals(dataset.spec().labels().get(RESOURCE_UID_LABEL));
    }

    /** The first field in which Granary's dataset is not what the resource asks, or null. */
    static String differs(DatasetSpec held, DatasetSpec desired) {
        DatasetSpec asked = desired.withDefaults();
        DatasetSpec have = held.withDefaults();
        if (!have.mounts().equals(asked.mounts())) {
            return "spec.mounts";
        }
        if (have.blockSizeBytes() != asked.blockSizeBytes()) {
            return "spec.blockSize";
        }
        if (!Objects.equals(have.replicas(), asked.replicas())) {
            return "spec.replicas";
        }
        if (!have.nodeSelector().equals(asked.nodeSelector())) {
            return "spec.nodeSelector";
        }
        if (!Objects.equals(have.readOnly(), asked.readOnly())) {
            return "spec.readOnly";
        }
        return null;
    }

    private static String granaryNameOrNull(DatasetResource resource) {
        try {
            return GranaryNames.of(resource.getMetadata().getNamespace(), resource.getMetadata().getName());
        } catch (ValidationException e) {
            return null;
        }
    }

    private static boolean older(DatasetResource one, DatasetResource other) {
        int byTime = one.getMetadata().getCreationTimestamp().compareTo(other.getMetadata().getCreationTimestamp());
        return byTime != 0 ? byTime < 0 : one.getMetadata().getUid().compareTo(other.getMetadata().getUid()) < 0;
    }

    private DatasetResourceStatus status(DatasetResource resource, String granaryName, Dataset dataset,
                                         boolean adopted, String differs) {
        DatasetStatus held = dataset.status();
        List<Condition> known = resource.getStatus() == null ? null : resource.getStatus().conditions();
        List<Condition> conditions;
        if (differs != null) {
            conditions = Conditions.notReady(known, resource, "SpecDiffers", differs + ": the Granary dataset "
                    + (adopted ? "adopted" : "made") + " has another value, which Granary cannot change; it is served "
                    + "as it is (delete the Dataset and apply it again to change it)");
        } else {
            conditions = switch (held.phase()) {
                case BOUND -> Conditions.ready(known, resource, "Bound", "listed " + held.fileCount() + " files");
                case PENDING -> Conditions.notReady(known, resource, "Listing", "Granary is listing the store");
                case FAILED -> Conditions.notReady(known, resource, "StoreFailed", held.reason());
            };
        }
        return new DatasetResourceStatus(phase(held.phase()), granaryName, held.fileCount(), held.ufsTotalBytes(),
                ByteSize.format(held.ufsTotalBytes()), held.cachedBytes(), held.cachedPercentage(),
                String.format(Locale.ROOT, "%.0f%%", held.cachedPercentage()), held.hitRatio(),
                resource.getMetadata().getName(), DatasetVolumes.volumeName(granaryName), adopted, conditions,
                resource.getMetadata().getGeneration());
    }

    private UpdateControl<DatasetResource> notReady(DatasetResource resource, String granaryName, String reason,
                                                    String message, Duration again) {
        DatasetResourceStatus known = resource.getStatus();
        resource.setStatus(DatasetResourceStatus.notReady(known, granaryName,
                Conditions.notReady(known == null ? null : known.conditions(), resource, reason, message),
                resource.getMetadata().getGeneration()));
        // Looked at again even when only an edit can mend it: what it waits on (an older Dataset, a claim of its
        // name) goes without an event to this resource.
        return UpdateControl.patchStatus(resource).rescheduleAfter(again == null ? config.resync() : again);
    }

    private static DatasetResource withStatus(DatasetResource resource, DatasetResourceStatus status) {
        resource.setStatus(status);
        return resource;
    }

    private static String phase(DatasetPhase phase) {
        return switch (phase) {
            case PENDING -> "Pending";
            case BOUND -> "Bound";
            case FAILED -> "Failed";
        };
    }
}
