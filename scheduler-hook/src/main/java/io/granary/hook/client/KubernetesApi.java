package io.granary.hook.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.granary.hook.config.HookConfig;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.Optional;

/**
 * The one client of the API server the hook's watches share (nodes, Datasets), or none without a cluster
 * ({@code granary.hook.kubernetes.enabled=false}).
 */
@ApplicationScoped
public class KubernetesApi {

    private static final Logger LOG = Logger.getLogger(KubernetesApi.class);

    private final HookConfig config;
    private volatile KubernetesClient client;

    KubernetesApi(HookConfig config) {
        this.config = config;
    }

    public synchronized Optional<KubernetesClient> client() {
        if (!config.kubernetes().enabled()) {
            return Optional.empty();
        }
        if (client == null) {
            Config clientConfig = config.kubernetes().url()
                    .map(url -> new ConfigBuilder().withMasterUrl(url.toString()).build())
                    .orElseGet(() -> Config.autoConfigure(null));
            client = new KubernetesClientBuilder().withConfig(clientConfig).build();
        }
        return Optional.of(client);
    }

    /**
     * Starts a watch that never holds start-up and never gives up: fabric8 stops an informer on an error before its
     * first list; this keeps trying instead (RBAC fixed later, API server briefly away). Until its first list
     * arrives, what it watches is simply unknown.
     */
    public static <T> void keepWatching(SharedIndexInformer<T> informer, String what, KubernetesClient client) {
        informer.exceptionHandler((started, failure) -> {
            LOG.warnf("watching %s on %s: %s; retrying", what, client.getMasterUrl(), failure.toString());
            return true;
        });
        informer.start().whenComplete((ignored, failure) -> {
            if (failure == null) {
                LOG.infof("watching %s on %s", what, client.getMasterUrl());
            }
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (client != null) {
            client.close();
        }
    }
}
