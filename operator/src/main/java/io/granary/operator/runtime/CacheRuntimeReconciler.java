package io.granary.operator.runtime;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Worker;
import io.granary.operator.config.OperatorConfig;
import io.granary.operator.granary.GranaryCalls;
import io.granary.operator.granary.WorkerClient;
import io.granary.operator.status.Condition;
import io.granary.operator.status.Conditions;
import io.granary.operator.status.ResourceEvents;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Scales the workers' StatefulSet to a CacheRuntime's replicas and sets their levels. A scale-in first drains the
 * workers that go (the StatefulSet removes the highest ordinals, and a worker's id is its pod's name), and lowers
 * the replicas only once each is Drained: their blocks are with their next owners, not lost. Their pods' own
 * preStop drain then finds nothing left to do.
 */
@Singleton  // not a client proxy: the SDK reads the resource type off the class
public class CacheRuntimeReconciler implements Reconciler<CacheRuntimeResource> {

    private static final Logger LOG = Logger.getLogger(CacheRuntimeReconciler.class);
    private static final Duration WHILE_DRAINING = Duration.ofSeconds(2);
    private static final String LEVEL_ENV = "GRANARY_BLOCK_LEVELS_";

    private final WorkerClient workers;
    private final OperatorConfig config;

    CacheRuntimeReconciler(@RestClient WorkerClient workers, OperatorConfig config) {
        this.workers = workers;
        this.config = config;
    }

    @Override
    public UpdateControl<CacheRuntimeResource> reconcile(CacheRuntimeResource runtime, Context<CacheRuntimeResource> context) {
        List<Condition> before = runtime.getStatus() == null ? null : runtime.getStatus().conditions();
        UpdateControl<CacheRuntimeResource> control = converge(runtime, context);
        ResourceEvents.readyChanged(context.getClient(), runtime, before, runtime.getStatus() == null ? null
                : runtime.getStatus().conditions());
        return control;
    }

    private UpdateControl<CacheRuntimeResource> converge(CacheRuntimeResource runtime,
                                                         Context<CacheRuntimeResource> context) {
        CacheRuntimeSpec spec = runtime.getSpec();
        KubernetesClient client = context.getClient();
        String namespace = runtime.getMetadata().getNamespace();
        if (spec == null || spec.replicas() == null) {
            return status(runtime, "NotReady", null, List.of(), "InvalidSpec", "spec.replicas: is required", null);
        }
        if (!namespace.equals(config.granaryNamespace())) {
            return status(runtime, "NotReady", null, List.of(), "WrongNamespace", "a CacheRuntime scales Granary's "
                    + "workers, in namespace " + config.granaryNamespace() + ": make it there", null);
        }
        StatefulSet workerSet = client.apps().statefulSets().inNamespace(namespace)
                .withName(spec.statefulSetOrDefault()).get();
        if (workerSet == null) {
            return status(runtime, "NotReady", null, List.of(), "StatefulSetNotFound", "spec.statefulSet: no "
                    + "StatefulSet '" + spec.statefulSetOrDefault() + "' in namespace " + namespace
                    + " (k8s/examples/autoscaling has the workers as one)", config.resync());
        }
        Optional<Container> container = workerSet.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> c.getName().equals(spec.containerOrDefault())).findFirst();
        if (container.isEmpty()) {
            return status(runtime, "NotReady", null, List.of(), "InvalidSpec", "spec.container: the StatefulSet has "
                    + "no container '" + spec.containerOrDefault() + "'", null);
        }
        if (!spec.levels().isEmpty()) {
            String wrong = wrongLevel(spec.levels(), container.get());
            if (wrong != null) {
                return status(runtime, "NotReady", null, List.of(), "InvalidSpec", wrong, null);
            }
            Map<String, String> env = levelEnv(spec.levels());
            if (!env.equals(levelEnvOf(container.get()))) {
                // A rolling update of the workers, each drained by its preStop hook as it goes.
                client.apps().statefulSets().inNamespace(namespace).withName(spec.statefulSetOrDefault())
                        .edit(set -> withLevelEnv(set, spec.containerOrDefault(), env));
                LOG.infof("CacheRuntime %s/%s: the workers' levels set to %s", namespace,
                        runtime.getMetadata().getName(), env);
            }
        }

        int current = Objects.requireNonNullElse(workerSet.getSpec().getReplicas(), 1);
        int desired = spec.replicas();
        rejoinStaying(runtime, spec.statefulSetOrDefault(), desired);
        if (desired < current) {
            List<String> draining = drainLeaving(spec.statefulSetOrDefault(), desired, current);
            if (!draining.isEmpty()) {
                return status(runtime, "Draining", current, draining, "Draining", "handing the blocks of "
                        + String.join(", ", draining) + " to their next owners before the scale-in", WHILE_DRAINING);
            }
        }
        if (desired != current) {
            client.apps().statefulSets().inNamespace(namespace).withName(spec.statefulSetOrDefault())
                    .scale(desired);
            LOG.infof("CacheRuntime %s/%s: %d workers, were %d", namespace, runtime.getMetadata().getName(),
                    desired, current);
        }
        return status(runtime, "Ready", desired, List.of(), "Scaled", desired + " workers", config.resync());
    }

    @Override
    public ErrorStatusUpdateControl<CacheRuntimeResource> updateErrorStatus(CacheRuntimeResource runtime,
                                                                            Context<CacheRuntimeResource> context,
                                                                            Exception e) {
        List<Condition> before = runtime.getStatus() == null ? null : runtime.getStatus().conditions();
        boolean unreachable = GranaryCalls.unreachable(e);
        CacheRuntimeStatus known = runtime.getStatus();
        runtime.setStatus(new CacheRuntimeStatus("NotReady", known == null ? null : known.replicas(),
                known == null ? null : known.draining(),
                Conditions.notReady(known == null ? null : known.conditions(), runtime,
                        unreachable ? "GranaryUnreachable" : "ReconcileFailed",
                        (unreachable ? "Granary could not be reached; retrying with backoff: " : "")
                                + GranaryCalls.detail(e)), runtime.getMetadata().getGeneration()));
        ResourceEvents.readyChanged(context.getClient(), runtime, before, runtime.getStatus().conditions());
        return ErrorStatusUpdateControl.patchStatus(runtime);
    }

    /**
     * A scale-in given up before its drains ended (the replicas raised again): the workers it was draining that stay
     * own blocks again. Only the ones this runtime drained: an admin's drain of another is left alone.
     */
    private void rejoinStaying(CacheRuntimeResource runtime, String statefulSet, int desired) {
        CacheRuntimeStatus known = runtime.getStatus();
        if (known == null) {
            return;
        }
        for (String id : known.draining()) {
            String ordinal = id.startsWith(statefulSet + "-") ? id.substring(statefulSet.length() + 1) : "";
            if (ordinal.matches("[0-9]+") && Integer.parseInt(ordinal) < desired) {
                workers.rejoin(id);
                LOG.infof("CacheRuntime %s/%s: %s stays, and owns blocks again", runtime.getMetadata().getNamespace(),
                        runtime.getMetadata().getName(), id);
            }
        }
    }

    /** Asks each leaving worker that is live and not drained to drain; the ones not Drained yet. */
    private List<String> drainLeaving(String statefulSet, int desired, int current) {
        Map<String, Worker> live = new LinkedHashMap<>();
        workers.workers().stream().filter(Worker::live).forEach(worker -> live.put(worker.id(), worker));
        List<String> draining = new ArrayList<>();
        for (int ordinal = desired; ordinal < current; ordinal++) {
            String id = statefulSet + "-" + ordinal;
            Worker worker = live.get(id);
            if (worker == null) {
                continue;  // not running (never started, or gone): nothing of the cache to keep
            }
            DrainStatus drain = worker.drain() != null ? worker.drain() : workers.drain(id);
            if (drain.phase() != DrainStatus.Phase.DRAINED) {
                draining.add(id);
            }
        }
        return draining;
    }

    /** The first level whose path no volume of the container is mounted at or above, as a message; or null. */
    static String wrongLevel(List<CacheLevel> levels, Container container) {
        long named = container.getEnv().stream()
                .filter(e -> e.getName().startsWith(LEVEL_ENV) && e.getName().endsWith("__PATHS")).count();
        if (levels.size() < named) {
            return "spec.levels: the StatefulSet's workers have " + named + " levels; name each of them";
        }
        for (int i = 0; i < levels.size(); i++) {
            Path path = Path.of(levels.get(i).path()).normalize();
            boolean mounted = container.getVolumeMounts().stream()
                    .anyMatch(mount -> path.startsWith(Path.of(mount.getMountPath())));
            if (!mounted) {
                return "spec.levels[" + i + "].path: no volume of the container '" + container.getName()
                        + "' is mounted at or above " + path;
            }
        }
        return null;
    }

    static Map<String, String> levelEnv(List<CacheLevel> levels) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < levels.size(); i++) {
            CacheLevel level = levels.get(i);
            String prefix = LEVEL_ENV + i + "__";
            env.put(prefix + "MEDIUM", level.medium());
            env.put(prefix + "PATHS", level.path());
            env.put(prefix + "QUOTA", level.quota());
            if (level.high() != null) {
                env.put(prefix + "HIGH", level.high().toString());
            }
            if (level.low() != null) {
                env.put(prefix + "LOW", level.low().toString());
            }
        }
        return env;
    }

    private static Map<String, String> levelEnvOf(Container container) {
        Map<String, String> env = new LinkedHashMap<>();
        container.getEnv().stream().filter(e -> e.getName().startsWith(LEVEL_ENV))
                .forEach(e -> env.put(e.getName(), e.getValue()));
        return env;
    }

    private static StatefulSet withLevelEnv(StatefulSet set, String containerName, Map<String, String> levels) {
        for (Container container : set.getSpec().getTemplate().getSpec().getContainers()) {
            if (container.getName().equals(containerName)) {
                List<EnvVar> env = new ArrayList<>(container.getEnv().stream()
                        .filter(e -> !e.getName().startsWith(LEVEL_ENV)).toList());
                levels.forEach((name, value) -> env.add(new EnvVar(name, value, null)));
                container.setEnv(env);
            }
        }
        return set;
    }

    private UpdateControl<CacheRuntimeResource> status(CacheRuntimeResource runtime, String phase,
                                                              Integer replicas, List<String> draining, String reason,
                                                              String message, Duration again) {
        CacheRuntimeStatus known = runtime.getStatus();
        List<Condition> conditions = "Ready".equals(phase)
                ? Conditions.ready(known == null ? null : known.conditions(), runtime, reason, message)
                : Conditions.notReady(known == null ? null : known.conditions(), runtime, reason, message);
        runtime.setStatus(new CacheRuntimeStatus(phase, replicas != null ? replicas
                : known == null ? null : known.replicas(), draining, conditions,
                runtime.getMetadata().getGeneration()));
        // Looked at again even when only an edit can mend it: the StatefulSet may be changed without an event here.
        return UpdateControl.patchStatus(runtime).rescheduleAfter(again == null ? config.resync() : again);
    }
}
