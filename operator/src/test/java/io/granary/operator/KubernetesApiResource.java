package io.granary.operator;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.MockWebServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.HashMap;
import java.util.Map;

/**
 * fabric8's Kubernetes mock API server in CRUD mode, watches included: no API server can run here (no
 * kube-apiserver or etcd binary, no container engine). It keeps and serves resources as the API server does, but
 * checks no schema, runs no controllers (no garbage collection, no volume binding): the CRD schemas are checked by
 * {@code CrdSchemasTest}. Holds Granary's namespace with one store credential Secret.
 */
public class KubernetesApiResource implements QuarkusTestResourceLifecycleManager {

    public static final String GRANARY_NAMESPACE = "granary";
    public static final String STORE_SECRET = "store-keys";

    private KubernetesMockServer server;

    @Override
    public Map<String, String> start() {
        server = new KubernetesMockServer(new io.fabric8.mockwebserver.Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient client = server.createClient()) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(GRANARY_NAMESPACE)
                    .endMetadata().build()).create();
            client.secrets().inNamespace(GRANARY_NAMESPACE).resource(new SecretBuilder().withNewMetadata()
                    .withName(STORE_SECRET).endMetadata().addToStringData("accessKey", "a").build()).create();
        }
        return Map.of("granary.operator.kubernetes-url", server.url("/"),
                "granary.operator.granary-namespace", GRANARY_NAMESPACE);
    }

    @Override
    public void stop() {
        if (server != null) {
            server.destroy();
        }
    }
}
