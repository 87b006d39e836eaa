package io.granary.kit.client;

import io.granary.kit.security.ClusterHeaders;
import io.quarkus.rest.client.reactive.QuarkusRestClientBuilder;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.URI;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** REST clients of the workers, by address, made once: workers come and go, their addresses are few. */
@ApplicationScoped
public class Workers {

    private final Map<String, WorkerApi> clients = new ConcurrentHashMap<>();
    private final ClusterHeaders headers;

    Workers(ClusterHeaders headers) {
        this.headers = headers;
    }

    public WorkerApi at(String address) {
        return clients.computeIfAbsent(address, base -> QuarkusRestClientBuilder.newBuilder()
                .baseUri(URI.create(base))
                .connectTimeout(2, TimeUnit.SECONDS)
                .readTimeout(10, TimeUnit.MINUTES)  // a batch of large blocks from a slow store takes a while
                .clientHeadersFactory(headers)  // a worker takes no call without the cluster credential
                .build(WorkerApi.class));
    }
}
