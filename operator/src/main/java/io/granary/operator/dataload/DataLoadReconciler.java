package io.granary.operator.dataload;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.dataload.Target;
import io.granary.contracts.validation.ValidationException;
import io.granary.operator.config.OperatorConfig;
import io.granary.operator.dataset.DatasetResource;
import io.granary.operator.events.GranaryEvents;
import io.granary.operator.granary.GranaryCalls;
import io.granary.operator.granary.PreloadClient;
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

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Starts each DataLoad's load in Granary once per spec (the resource's uid and generation are the load's
 * {@code Idempotency-Key}, so a reconcile repeated after a restart starts nothing twice), keeps its progress on the
 * status, and cancels it when the resource goes. A changed spec cancels the running load and starts another.
 */
@Singleton  // not a client proxy: the SDK reads the resource type off the class
public class DataLoadReconciler implements Reconciler<DataLoadResource>, Cleaner<DataLoadResource> {

    /** How soon to look again at a load no event told of (the events drive it; this is the floor). */
    private static final Duration RUNNING = Duration.ofSeconds(10);
    private static final Duration WAITING = Duration.ofSeconds(2);
    private static final int ERRORS_KEPT = 10;

    private final PreloadClient preload;
    private final GranaryEvents events;
    private final OperatorConfig config;

    DataLoadReconciler(@RestClient PreloadClient preload, GranaryEvents events, OperatorConfig config) {
        this.preload = preload;
        this.events = events;
        this.config = config;
    }

    @Override
    public List<EventSource<?, DataLoadResource>> prepareEventSources(EventSourceContext<DataLoadResource> context) {
        return List.of(events.newLoadSource());
    }

    @Override
    public UpdateControl<DataLoadResource> reconcile(DataLoadResource resource, Context<DataLoadResource> context) {
        List<Condition> before = resource.getStatus() == null ? null : resource.getStatus().conditions();
        UpdateControl<DataLoadResource> control = converge(resource, context);
        ResourceEvents.readyChanged(context.getClient(), resource, before, resource.getStatus() == null ? null
                : resource.getStatus().conditions());
        return control;
    }

    private UpdateControl<DataLoadResource> converge(DataLoadResource resource, Context<DataLoadResource> context) {
        DataLoadResourceSpec spec = resource.getSpec();
        String namespace = resource.getMetadata().getNamespace();
        DatasetResource dataset = spec == null || spec.dataset() == null ? null : context.getClient()
                .resources(DatasetResource.class).inNamespace(namespace).withName(spec.dataset()).get();
        if (dataset == null) {
            return notReady(resource, "DatasetNotFound", "spec.dataset: no Dataset '"
                    + (spec == null ? null : spec.dataset()) + "' in namespace " + namespace, config.resync(), true);
        }
        // Owned by its Dataset: it goes with it (the Dataset's finalizer deletes it too, GC or not). The reference
        // is patched with the status: a change of metadata alone would not reconcile it again.
        boolean owned = resource.getMetadata().getOwnerReferences().stream()
                .anyMatch(owner -> owner.getUid().equals(dataset.getMetadata().getUid()));
        if (!owned) {
            resource.getMetadata().getOwnerReferences().add(new OwnerReferenceBuilder()
                    .withApiVersion(dataset.getApiVersion()).withKind(dataset.getKind())
                    .withName(dataset.getMetadata().getName()).withUid(dataset.getMetadata().getUid()).build());
        }
        if (dataset.getStatus() == null || dataset.getStatus().granaryName() == null
                || !"Bound".equals(dataset.getStatus().phase())) {
            return notReady(resource, "DatasetNotReady", "spec.dataset: the Dataset '" + spec.dataset()
                    + "' is not Bound yet", WAITING, owned);
        }
        DataLoadSpec load;
        try {
            load = load(spec, dataset.getStatus().granaryName()).validate();
        } catch (ValidationException e) {
            return notReady(resource, "InvalidSpec", "spec." + e.field() + ": " + e.detail(), null, owned);
        }

        DataLoadResourceStatus known = resource.getStatus();
        long generation = resource.getMetadata().getGeneration();
        String loadId = known != null && known.loadId() != null && Objects.equals(known.observedGeneration(),
                generation) ? known.loadId() : null;
        if (loadId == null) {
            if (known != null && known.loadId() != null) {
                cancel(known.loadId());  // the spec changed: the old load gives way
            }
            try {
                loadId = preload.start(resource.getMetadata().getUid() + "-" + generation, load).id();
            } catch (RuntimeException e) {
                if (GranaryCalls.status(e, 400) || GranaryCalls.status(e, 409)) {
                    return notReady(resource, "InvalidSpec", GranaryCalls.detail(e), null, owned);
                }
                throw e;
            }
        }
        events.watchLoad(loadId, ResourceID.fromResource(resource));
        DataLoadStatus held = preload.status(loadId);
        resource.setStatus(status(resource, loadId, held));
        UpdateControl<DataLoadResource> control = patch(resource, owned);
        if (spec.schedule() != null) {
            return control.rescheduleAfter(config.resync());
        }
        return held.phase().ended() ? control : control.rescheduleAfter(RUNNING);
    }

    @Override
    public ErrorStatusUpdateControl<DataLoadResource> updateErrorStatus(DataLoadResource resource,
                                                                        Context<DataLoadResource> context,
                                                                        Exception e) {
        List<Condition> before = resource.getStatus() == null ? null : resource.getStatus().conditions();
        boolean unreachable = GranaryCalls.unreachable(e);
        notReadyStatus(resource, unreachable ? "GranaryUnreachable" : "ReconcileFailed",
                (unreachable ? "Granary could not be reached; retrying with backoff: " : "") + GranaryCalls.detail(e));
        ResourceEvents.readyChanged(context.getClient(), resource, before, resource.getStatus().conditions());
        return ErrorStatusUpdateControl.patchStatus(resource);
    }

    @Override
    public DeleteControl cleanup(DataLoadResource resource, Context<DataLoadResource> context) {
        DataLoadResourceStatus known = resource.getStatus();
        if (known != null && known.loadId() != null) {
            if (resource.getSpec() != null && resource.getSpec().schedule() != null
                    || !List.of("Complete", "Failed", "Cancelled").contains(known.phase())) {
                cancel(known.loadId());
            }
            events.forgetLoad(known.loadId());
        }
        return DeleteControl.defaultDelete();
    }

    private void cancel(String loadId) {
        try {
            preload.cancel(loadId);
        } catch (RuntimeException e) {
            if (!GranaryCalls.status(e, 404)) {
                throw e;
            }
        }
    }

    static DataLoadSpec load(DataLoadResourceSpec spec, String granaryName) {
        List<Target> targets = spec.targets().stream().map(t -> new Target(t.path(), t.replicas())).toList();
        return new DataLoadSpec(granaryName, targets, spec.files(), Boolean.TRUE.equals(spec.metadataOnly()),
                spec.schedule() == null ? LoadPolicy.ONCE : LoadPolicy.CRON, spec.schedule(),
                spec.priority() == null ? 0 : spec.priority());
    }

    private static DataLoadResourceStatus status(DataLoadResource resource, String loadId, DataLoadStatus held) {
        DataLoadResourceStatus known = resource.getStatus();
        String started = held.startedAt() == null ? null : held.startedAt().toString();
        int runs = known == null || known.runs() == null ? 0 : known.runs();
        if (started != null && (known == null || !started.equals(known.startTime())
                || !loadId.equals(known.loadId()))) {
            runs++;
        }
        List<Condition> conditions = held.phase() == DataLoadPhase.FAILED
                ? Conditions.notReady(known == null ? null : known.conditions(), resource, "LoadFailed",
                held.errors().isEmpty() ? "the load failed"
                        : held.errors().get(0).path() + ": " + held.errors().get(0).reason())
                : Conditions.ready(known == null ? null : known.conditions(), resource, "Started",
                "Granary load " + loadId);
        return new DataLoadResourceStatus(phase(held.phase()), loadId, held.filesDone(), held.filesTotal(),
                held.bytesDone(), held.bytesTotal(), held.filesDone() + "/" + held.filesTotal(), held.errors().size(),
                held.errors().subList(0, Math.min(ERRORS_KEPT, held.errors().size())), started,
                held.finishedAt() == null ? null : held.finishedAt().toString(), runs, conditions,
                resource.getMetadata().getGeneration());
    }

    private UpdateControl<DataLoadResource> notReady(DataLoadResource resource, String reason, String message,
                                                     Duration again, boolean owned) {
        notReadyStatus(resource, reason, message);
        // Looked at again even when only an edit can mend it: its Dataset may come, Granary may take it later.
        return patch(resource, owned).rescheduleAfter(again == null ? config.resync() : again);
    }

    private static UpdateControl<DataLoadResource> patch(DataLoadResource resource, boolean owned) {
        return owned ? UpdateControl.patchStatus(resource) : UpdateControl.patchResourceAndStatus(resource);
    }

    private static void notReadyStatus(DataLoadResource resource, String reason, String message) {
        DataLoadResourceStatus known = resource.getStatus();
        List<Condition> conditions = Conditions.notReady(known == null ? null : known.conditions(), resource, reason,
                message);
        resource.setStatus(known == null
                ? new DataLoadResourceStatus(DataLoadResourceStatus.NOT_READY, null, null, null, null, null, null,
                null, null, null, null, null, conditions, null)
                : new DataLoadResourceStatus(DataLoadResourceStatus.NOT_READY, known.loadId(), known.filesDone(),
                known.filesTotal(), known.bytesDone(), known.bytesTotal(), known.progress(), known.failedFiles(),
                known.errors(), known.startTime(), known.endTime(), known.runs(), conditions,
                known.observedGeneration()));
    }

    private static String phase(DataLoadPhase phase) {
        return switch (phase) {
            case PENDING -> "Pending";
            case LOADING -> "Loading";
            case COMPLETE -> "Complete";
            case FAILED -> "Failed";
            case CANCELLED -> "Cancelled";
        };
    }
}
