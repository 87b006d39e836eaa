package io.granary.hook.admission;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HostPathVolumeSource;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.granary.hook.affinity.LocalityTerm;
import io.granary.hook.affinity.LocalityWeights;
import io.granary.hook.client.CacheLocation;
import io.granary.hook.config.HookConfig;
import io.granary.hook.topology.Location;
import io.granary.hook.topology.NodeTopology;
import io.granary.kit.rest.DatasetNotFoundException;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Changes a copy of a pod the way the webhook's answer will: data-locality affinity, the env and mounts that
 * lead it to its data, and an annotation that records what was done. That annotation also makes a second call
 * (the API server reinvokes webhooks) a no-op, even if the cache moved in between.
 */
@ApplicationScoped
public class PodMutation {

    /** Set on every pod the webhook changed: a short account of the affinity given, for {@code kubectl describe}. */
    public static final String AFFINITY_ANNOTATION = "granary.io/affinity";
    /** The label the block-service and FUSE DaemonSets select cache nodes by. */
    public static final String CACHE_NODE_LABEL = "granary.io/cache-node";
    public static final String ENDPOINT_ENV = "AWS_ENDPOINT_URL";
    public static final String DATASETS_ENV = "GRANARY_DATASETS";
    public static final String DATASETS_VOLUME = "granary-datasets";

    private static final String NODE_NAME_FIELD = "metadata.name";

    private final HookConfig config;
    private final NodeTopology topology;

    PodMutation(HookConfig config, NodeTopology topology) {
        this.config = config;
        this.topology = topology;
    }

    public static boolean alreadyMutated(Pod pod) {
        var annotations = pod.getMetadata().getAnnotations();
        return annotations != null && annotations.containsKey(AFFINITY_ANNOTATION);
    }

    /** Steers a pod toward its data; returns warnings for whoever created it. */
    public List<String> towardData(Pod pod, OptIn optIn, CacheLocation cached) {
        List<String> warnings = new ArrayList<>();
        cached.unknown().forEach(dataset -> warnings.add("granary: " + DatasetNotFoundException.message(dataset)));
        String given;
        if (pod.getSpec().getNodeName() != null) {
            // Already bound: the scheduler is bypassed and the kubelet would reject a pod whose affinity misses.
            given = "bound to " + pod.getSpec().getNodeName() + " by spec.nodeName";
            warnings.add("granary: spec.nodeName is set, so no data-locality affinity is added");
        } else if (cached.none()) {
            given = "nothing cached yet";
            if (optIn.required()) {
                warnings.add("granary: nothing of " + String.join(",", optIn.datasets()) + " is cached yet; "
                        + "scheduling is not restricted");
            }
        } else {
            List<LocalityTerm> terms = LocalityWeights.terms(cached.byNode(), topology::locate, config.maxNodeTerms());
            NodeAffinity affinity = nodeAffinity(pod.getSpec());
            terms.forEach(term -> affinity.getPreferredDuringSchedulingIgnoredDuringExecution()
                    .add(new PreferredSchedulingTerm(selectorTerm(term), term.weight())));
            boolean required = optIn.required() && requireCacheNodes(affinity, cached, warnings);
            given = (required ? "required " : "") + terms.stream()
                    .map(PodMutation::describe).collect(Collectors.joining(" "));
        }
        List<String> known = optIn.datasets().stream().filter(d -> !cached.unknown().contains(d)).toList();
        leadToData(pod, known, optIn.mountPath());
        annotate(pod, String.join(",", optIn.datasets()) + ": " + given);
        return warnings;
    }

    /**
     * Restricts the pod to the nodes holding its data, by their hostname label: a node field selector (matchFields)
     * takes exactly one value. A node whose label is not known (the node watch has not listed it yet, or it is off)
     * leaves the pod unrestricted: guessing the label from the name could match no node and leave the pod Pending.
     */
    private boolean requireCacheNodes(NodeAffinity affinity, CacheLocation cached, List<String> warnings) {
        List<String> nodes = cached.byNode().entrySet().stream().filter(e -> e.getValue() > 0).map(e -> e.getKey())
                .sorted().toList();
        List<String> unknown = nodes.stream().filter(node -> topology.locate(node).hostname().isEmpty()).toList();
        if (!unknown.isEmpty()) {
            warnings.add("granary: the hostname of " + String.join(",", unknown) + " is not known yet; scheduling "
                    + "is not restricted, only preferred");
            return false;
        }
        List<String> hostnames = nodes.stream().map(node -> topology.locate(node).hostname().orElseThrow())
                .distinct().toList();
        require(affinity, new NodeSelectorRequirement(Location.HOSTNAME_LABEL, "In", hostnames));
        return true;
    }

    /** The datasets the first call gave the pod's containers, for containers a later webhook added. */
    public static Optional<List<String>> datasetsGiven(Pod pod) {
        return containers(pod.getSpec()).stream().flatMap(c -> Stream.ofNullable(c.getEnv()).flatMap(List::stream))
                .filter(env -> DATASETS_ENV.equals(env.getName()) && env.getValue() != null).findFirst()
                .map(env -> env.getValue().isEmpty() ? List.of() : List.of(env.getValue().split(",")));
    }

    /**
     * What leads every container to the data, none of which needs the metadata-service: the gateway's endpoint,
     * the datasets' names and, when asked, the FUSE mounts. Idempotent: what is already there stays as it is.
     */
    public void leadToData(Pod pod, List<String> datasets, Optional<String> mountPath) {
        if (mountPath.isPresent()) {
            mount(pod.getSpec(), mountPath.get());
            if (pod.getSpec().getNodeName() == null) {
                // Only cache nodes run the FUSE DaemonSet that the mounts come from.
                require(nodeAffinity(pod.getSpec()), new NodeSelectorRequirement(CACHE_NODE_LABEL, "In", List.of("true")));
            }
        }
        containers(pod.getSpec()).forEach(container -> {
            setIfAbsent(container, ENDPOINT_ENV, config.gatewayEndpoint().toString());
            setIfAbsent(container, DATASETS_ENV, String.join(",", datasets));
        });
    }

    /** Keeps a pod that reads no dataset off the cache nodes when it can go elsewhere. */
    public void awayFromCacheNodes(Pod pod) {
        if (pod.getSpec().getNodeName() == null) {
            NodeSelectorTerm elsewhere = new NodeSelectorTerm(
                    List.of(new NodeSelectorRequirement(CACHE_NODE_LABEL, "NotIn", List.of("true"))), List.of());
            nodeAffinity(pod.getSpec()).getPreferredDuringSchedulingIgnoredDuringExecution()
                    .add(new PreferredSchedulingTerm(elsewhere, 100));
        }
        annotate(pod, "no dataset: away from cache nodes");
    }

    private static NodeSelectorTerm selectorTerm(LocalityTerm term) {
        return switch (term.proximity()) {
            // matchFields on the node's name, not the hostname label, which need not equal it.
            case NODE -> new NodeSelectorTerm(List.of(),
                    List.of(new NodeSelectorRequirement(NODE_NAME_FIELD, "In", List.of(term.value()))));
            case ZONE -> new NodeSelectorTerm(
                    List.of(new NodeSelectorRequirement(Location.ZONE_LABEL, "In", List.of(term.value()))), List.of());
            case REGION -> new NodeSelectorTerm(
                    List.of(new NodeSelectorRequirement(Location.REGION_LABEL, "In", List.of(term.value()))), List.of());
        };
    }

    private static String describe(LocalityTerm term) {
        String prefix = switch (term.proximity()) {
            case NODE -> "";
            case ZONE -> "zone/";
            case REGION -> "region/";
        };
        return prefix + term.value() + "=" + term.weight();
    }

    private static NodeAffinity nodeAffinity(PodSpec spec) {
        if (spec.getAffinity() == null) {
            spec.setAffinity(new Affinity());
        }
        Affinity affinity = spec.getAffinity();
        if (affinity.getNodeAffinity() == null) {
            affinity.setNodeAffinity(new NodeAffinity());
        }
        NodeAffinity nodeAffinity = affinity.getNodeAffinity();
        if (nodeAffinity.getPreferredDuringSchedulingIgnoredDuringExecution() == null) {
            nodeAffinity.setPreferredDuringSchedulingIgnoredDuringExecution(new ArrayList<>());
        }
        return nodeAffinity;
    }

    /**
     * Adds a requirement to every required term. The terms are alternatives (ORed), so adding a term of our own
     * would loosen the pod's constraints; adding to each of them narrows them as meant.
     */
    private static void require(NodeAffinity affinity, NodeSelectorRequirement expression) {
        NodeSelector required = affinity.getRequiredDuringSchedulingIgnoredDuringExecution();
        if (required == null || required.getNodeSelectorTerms() == null || required.getNodeSelectorTerms().isEmpty()) {
            required = new NodeSelector(new ArrayList<>(List.of(new NodeSelectorTerm(new ArrayList<>(), new ArrayList<>()))));
            affinity.setRequiredDuringSchedulingIgnoredDuringExecution(required);
        }
        for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
            term.setMatchExpressions(append(term.getMatchExpressions(), expression));
        }
    }

    private static List<NodeSelectorRequirement> append(List<NodeSelectorRequirement> list, NodeSelectorRequirement item) {
        List<NodeSelectorRequirement> copy = list == null ? new ArrayList<>() : new ArrayList<>(list);
        if (!copy.contains(item)) {
            copy.add(item);
        }
        return copy;
    }

    /**
     * The FUSE DaemonSet's root ({@code /mnt/granary}, each dataset at {@code <root>/<dataset>}) as one read-only
     * hostPath volume at {@code mountPath}, so the datasets are at {@code mountPath/<dataset>}. The parent, not each
     * mount point, with HostToContainer propagation: a dataset the DaemonSet remounts (it heals dead mounts) or
     * mounts later reaches the running pod, where a bind of the mount point itself would keep the dead mount.
     * DirectoryOrCreate: a pod that starts before the DaemonSet does gets the directory its mounts then land in.
     * Read-only: checkpoints are written through the S3 API, where writes are authenticated.
     */
    private void mount(PodSpec spec, String mountPath) {
        if (spec.getVolumes() == null) {
            spec.setVolumes(new ArrayList<>());
        }
        if (spec.getVolumes().stream().noneMatch(v -> DATASETS_VOLUME.equals(v.getName()))) {
            Volume hostPath = new Volume();
            hostPath.setName(DATASETS_VOLUME);
            hostPath.setHostPath(new HostPathVolumeSource(config.fuseRoot(), "DirectoryOrCreate"));
            spec.getVolumes().add(hostPath);
        }
        containers(spec).forEach(container -> {
            if (container.getVolumeMounts() == null) {
                container.setVolumeMounts(new ArrayList<>());
            }
            boolean taken = container.getVolumeMounts().stream()
                    .anyMatch(m -> mountPath.equals(m.getMountPath()) || DATASETS_VOLUME.equals(m.getName()));
            if (!taken) {
                VolumeMount mount = new VolumeMount();
                mount.setName(DATASETS_VOLUME);
                mount.setMountPath(mountPath);
                mount.setReadOnly(true);
                mount.setMountPropagation("HostToContainer");
                container.getVolumeMounts().add(mount);
            }
        });
    }

    /** Init containers too: a common pattern is an init container that stages data. */
    private static List<Container> containers(PodSpec spec) {
        return Stream.concat(Stream.ofNullable(spec.getInitContainers()).flatMap(List::stream),
                Stream.ofNullable(spec.getContainers()).flatMap(List::stream)).filter(Objects::nonNull).toList();
    }

    /** A value the pod sets itself is the pod's choice and stays. */
    private static void setIfAbsent(Container container, String name, String value) {
        if (container.getEnv() == null) {
            container.setEnv(new ArrayList<>());
        }
        if (container.getEnv().stream().noneMatch(env -> name.equals(env.getName()))) {
            container.getEnv().add(new EnvVar(name, value, null));
        }
    }

    private static void annotate(Pod pod, String affinity) {
        if (pod.getMetadata().getAnnotations() == null) {
            pod.getMetadata().setAnnotations(new HashMap<>());
        }
        pod.getMetadata().getAnnotations().put(AFFINITY_ANNOTATION, affinity);
    }
}
