package io.granary.operator;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.granary.operator.config.OperatorConfig;
import io.granary.operator.dataload.DataLoadReconciler;
import io.granary.operator.dataset.DatasetReconciler;
import io.granary.operator.runtime.CacheRuntimeReconciler;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;


/**
 * Runs the reconcilers (the Java Operator SDK's {@link Operator}) for as long as the service runs. Status is
 * patched with JSON patches (against the cached resource), not server-side apply, which every API server and fabric8's
 * mock server take.
 */
@ApplicationScoped
public class Reconcilers {

    private static final Logger LOG = Logger.getLogger(Reconcilers.class);

    private final OperatorConfig config;
    private final DatasetReconciler datasets;
    private final DataLoadReconciler loads;
    private final CacheRuntimeReconciler runtimes;
    private Operator operator;

    Reconcilers(OperatorConfig config, DatasetReconciler datasets, DataLoadReconciler loads,
                CacheRuntimeReconciler runtimes) {
        this.config = config;
        this.datasets = datasets;
        this.loads = loads;
        this.runtimes = runtimes;
    }

    void onStart(@Observes StartupEvent started) {
        if (config.enabled()) {
            start();
        }
    }

    void onStop(@Observes ShutdownEvent stopped) {
        stop();
    }

    /** Starts watching and reconciling; a test may stop and start it again, as a restarted pod would. */
    public synchronized void start() {
        ConfigBuilder kubernetes = new ConfigBuilder();
        config.kubernetesUrl().ifPresent(kubernetes::withMasterUrl);
        KubernetesClient client = new KubernetesClientBuilder().withConfig(kubernetes.build()).build();
        operator = new Operator(o -> o.withKubernetesClient(client).withUseSSAToPatchPrimaryResource(false)
                .withCloseClientOnStop(true));
        operator.register(datasets, this::configure);
        operator.register(loads, this::configure);
        operator.register(runtimes, this::configure);
        operator.start();
        LOG.infof("Reconciling Datasets, DataLoads and CacheRuntimes in %s", config.namespaces()
                .map(namespaces -> "namespaces " + namespaces).orElse("every namespace"));
    }

    public synchronized void stop() {
        if (operator != null) {
            operator.stop();
            operator = null;
        }
    }

    private <R extends io.fabric8.kubernetes.api.model.HasMetadata> void configure(
            ControllerConfigurationOverrider<R> controller) {
        // Granary unreachable: try again, 1 s, 2 s, 4 s... up to a minute apart, for as long as it takes.
        controller.withRetry(new GenericRetry().setInitialInterval(config.retryFirst().toMillis())
                .setIntervalMultiplier(2).setMaxInterval(config.retryMost().toMillis()).setMaxAttempts(-1));
        config.namespaces().ifPresentOrElse(controller::settingNamespaces, controller::watchingAllNamespaces);
    }
}
