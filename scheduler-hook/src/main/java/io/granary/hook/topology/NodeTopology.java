package io.granary.hook.topology;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.granary.hook.config.HookConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.concurrent.TimeUnit;

/**
 * The zone and region of every node, kept current by a watch on the API server (an informer), so an admission
 * looks a node up in memory and never waits on the API server. Without a cluster every node is
 * {@link Location#UNKNOWN} and pods get node terms only.
 */
@ApplicationScoped
public class NodeTopology {

    private static final Logger LOG = Logger.getLogger(NodeTopology.class);
    private static final long RESYNC_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private final HookConfig config;
    private volatile KubernetesClient client;
    private volatile SharedIndexInformer<Node> nodes;

    NodeTopology(HookConfig config) {
        this.config = config;
    }

    void start(@Observes StartupEvent event) {
        if (!config.kubernetes().enabled()) {
            LOG.info("node topology off (granary.hook.kubernetes.enabled=false): no zone or region terms");
            return;
        }
        Config clientConfig = config.kubernetes().url()
                .map(url -> new ConfigBuilder().withMasterUrl(url.toString()).build())
                .orElseGet(() -> Config.autoConfigure(null));
        client = new KubernetesClientBuilder().withConfig(clientConfig).build();
        nodes = client.nodes().runnableInformer(RESYNC_MILLIS);
        // fabric8 stops an informer on an error before its first list; keep trying instead (RBAC fixed later, API
        // server briefly away): until then pods get node terms only.
        nodes.exceptionHandler((started, failure) -> {
            LOG.warnf("watching nodes on %s: %s; retrying", clientConfig.getMasterUrl(), failure.toString());
            return true;
        });
        // Never hold start-up: until the first list arrives, nodes are simply unknown.
        nodes.start().whenComplete((ignored, failure) -> {
            if (failure == null) {
                LOG.infof("watching node topology on %s", clientConfig.getMasterUrl());
            }
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (nodes != null) {
            nodes.close();
        }
        if (client != null) {
            client.close();
        }
    }

    public Location locate(String node) {
        SharedIndexInformer<Node> informer = nodes;
        if (informer == null) {
            return Location.UNKNOWN;
        }
        Node found = informer.getStore().getByKey(node);
        return found == null ? Location.UNKNOWN : Location.of(found.getMetadata().getLabels());
    }
}
