package io.granary.operator.dataset;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Dataset's PersistentVolume and PersistentVolumeClaim, as Fluid makes them: a volume that is the dataset's
 * directory under the FUSE client's root ({@code local}, so the scheduler places its pods only on nodes that run the
 * FUSE client and match the dataset's node selector), bound ahead to a claim of the Dataset's own name in its
 * namespace. Any pod mounts it with {@code persistentVolumeClaim.claimName}. Read-only when the dataset is.
 */
public final class DatasetVolumes {

    /** No provisioner has this class: the operator binds each volume to its claim itself. */
    public static final String STORAGE_CLASS = "granary";
    public static final String DATASET_LABEL = "granary.io/dataset";
    /** A volume's size is nominal (what the store holds, which grows), as Fluid's are. */
    private static final Quantity CAPACITY = new Quantity("100Pi");

    private DatasetVolumes() {
    }

    /** The volume's name: cluster-wide, so the Granary name (unique across namespaces). */
    public static String volumeName(String granaryName) {
        return "granary-" + granaryName;
    }

    public static PersistentVolume volume(DatasetResource dataset, String granaryName, Path fuseRoot,
                                          String cacheNodeLabel) {
        List<NodeSelectorRequirement> nodes = new ArrayList<>();
        String[] cacheNode = cacheNodeLabel.split("=", 2);
        nodes.add(requirement(cacheNode[0], cacheNode.length > 1 ? cacheNode[1] : "true"));
        dataset.getSpec().nodeSelector().forEach((key, value) -> nodes.add(requirement(key, value)));
        return new PersistentVolumeBuilder()
                .withNewMetadata().withName(volumeName(granaryName)).withLabels(labels(granaryName)).endMetadata()
                .withNewSpec()
                .withCapacity(Map.of("storage", CAPACITY))
                .withAccessModes(accessMode(dataset))
                .withPersistentVolumeReclaimPolicy("Retain")
                .withStorageClassName(STORAGE_CLASS)
                .withVolumeMode("Filesystem")
                .withNewLocal().withPath(fuseRoot.resolve(granaryName).toString()).endLocal()
                .withNewNodeAffinity().withNewRequired().addNewNodeSelectorTerm().withMatchExpressions(nodes)
                .endNodeSelectorTerm().endRequired().endNodeAffinity()
                .withNewClaimRef().withApiVersion("v1").withKind("PersistentVolumeClaim")
                .withNamespace(dataset.getMetadata().getNamespace()).withName(dataset.getMetadata().getName())
                .endClaimRef()
                .endSpec().build();
    }

    public static PersistentVolumeClaim claim(DatasetResource dataset, String granaryName) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(dataset.getMetadata().getName())
                .withNamespace(dataset.getMetadata().getNamespace()).withLabels(labels(granaryName))
                .withOwnerReferences(ownedBy(dataset)).endMetadata()
                .withNewSpec()
                .withAccessModes(accessMode(dataset))
                .withStorageClassName(STORAGE_CLASS)
                .withVolumeName(volumeName(granaryName))
                .withNewResources().withRequests(Map.of("storage", CAPACITY)).endResources()
                .endSpec().build();
    }

    /** Owned, for garbage collection; not blocking the owner's deletion, which would need its finalizers' RBAC. */
    static io.fabric8.kubernetes.api.model.OwnerReference ownedBy(HasMetadata owner) {
        return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                .withController(true).build();
    }

    /** Whether this claim is the one the Dataset made (not a claim of the same name the namespace had). */
    public static boolean ownedBy(PersistentVolumeClaim claim, DatasetResource dataset) {
        return claim.getMetadata().getOwnerReferences().stream()
                .anyMatch(owner -> owner.getUid().equals(dataset.getMetadata().getUid()));
    }

    /** Whether this volume is the Dataset's (its claim reference names the Dataset's claim). */
    public static boolean claimedBy(PersistentVolume volume, DatasetResource dataset) {
        var claim = volume.getSpec().getClaimRef();
        return claim != null && dataset.getMetadata().getNamespace().equals(claim.getNamespace())
                && dataset.getMetadata().getName().equals(claim.getName());
    }

    /** Whether the volume is still bound to an earlier claim of the name (it was deleted and made again). */
    static boolean boundToAnother(PersistentVolume volume, PersistentVolumeClaim claim) {
        var ref = volume.getSpec().getClaimRef();
        return ref != null && ref.getUid() != null && !ref.getUid().equals(claim.getMetadata().getUid());
    }

    /** The volume with its claim reference naming the claim by name only, so it binds the claim there now. */
    static PersistentVolume rebound(PersistentVolume volume) {
        volume.getSpec().getClaimRef().setUid(null);
        volume.getSpec().getClaimRef().setResourceVersion(null);
        return volume;
    }

    private static String accessMode(DatasetResource dataset) {
        return Boolean.TRUE.equals(dataset.getSpec().readOnly()) ? "ReadOnlyMany" : "ReadWriteMany";
    }

    private static Map<String, String> labels(String granaryName) {
        return Map.of(DATASET_LABEL, granaryName, "app.kubernetes.io/managed-by", "granary-operator");
    }

    private static NodeSelectorRequirement requirement(String key, String value) {
        return new NodeSelectorRequirementBuilder().withKey(key).withOperator("In").withValues(value).build();
    }
}
