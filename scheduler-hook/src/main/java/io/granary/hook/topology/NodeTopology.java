package io.granary.hook.topology;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.granary.hook.client.KubernetesApi;
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

    private final KubernetesApi api;
    private volatile SharedIndexInformer<Node> nodes;

    NodeTopology(KubernetesApi api) {
        this.api = api;
    }

    void start(@Observes StartupEvent event) {
        api.client().ifPresentOrElse(client -> {
            nodes = client.nodes().runnableInformer(RESYNC_MILLIS);
            KubernetesApi.keepWatching(nodes, "node topology", client);
        }, () -> LOG.info("node topology off (granary.hook.kubernetes.enabled=false): no zone or region terms"));
    }

    void stop(@Observes ShutdownEvent event) {
        if (nodes != null) {
            nodes.close();
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
