package io.granary.hook;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.granary.hook.datasets.DatasetResources;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.HashMap;
import java.util.Map;

/**
 * fabric8's Kubernetes mock API server in CRUD mode (what Quarkus' {@code @WithKubernetesTestServer(crud = true)}
 * runs; that extension is not served at our Quarkus version), holding four nodes in two regions:
 * <pre>
 *   node-a  zone-1  region-1
 *   node-b  zone-1  region-1
 *   node-c  zone-2  region-1   (hostname label node-c.example.internal: it need not be the node's name)
 *   node-d  zone-3  region-2
 * </pre>
 */
public class KubernetesApiResource implements QuarkusTestResourceLifecycleManager {

    private KubernetesMockServer server;

    @Override
    public Map<String, String> start() {
        server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            node(client, "node-a", "node-a", "zone-1", "region-1");
            node(client, "node-b", "node-b", "zone-1", "region-1");
            node(client, "node-c", "node-c.example.internal", "zone-2", "region-1");
            node(client, "node-d", "node-d", "zone-3", "region-2");
            // The operator's Dataset photos of namespace ml-team: the Granary dataset ml-team-photos.
            client.genericKubernetesResources(DatasetResources.DATASETS).inNamespace("ml-team")
                    .resource(new GenericKubernetesResourceBuilder().withApiVersion("granary.io/v1alpha1")
                            .withKind("Dataset").withNewMetadata().withName("photos").withNamespace("ml-team")
                            .endMetadata().addToAdditionalProperties("status", Map.of("granaryName", "ml-team-photos"))
                            .build()).create();
        }
        return Map.of("granary.hook.kubernetes.url", server.url("/"));
    }

    private static void node(KubernetesClient client, String name, String hostname, String zone, String region) {
        client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
                .addToLabels("kubernetes.io/hostname", hostname)
                .addToLabels("topology.kubernetes.io/zone", zone)
                .addToLabels("topology.kubernetes.io/region", region)
                .endMetadata().build()).create();
    }

    @Override
    public void stop() {
        if (server != null) {
            server.destroy();
        }
    }
}
