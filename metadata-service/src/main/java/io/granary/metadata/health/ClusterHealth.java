package io.granary.metadata.health;

import io.granary.metadata.store.MetadataCaches;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import java.util.Optional;

/**
 * Ready while this replica's replicated state can be served: its Infinispan node runs, is in a cluster view (one it
 * formed alone, or the others'), and every replicated cache runs and is available. A replica whose caches stopped
 * or failed says so, and a Service stops sending it calls it would fail.
 */
@Readiness
@ApplicationScoped
public class ClusterHealth implements HealthCheck {

    private final MetadataCaches caches;

    public ClusterHealth(MetadataCaches caches) {
        this.caches = caches;
    }

    @Override
    public HealthCheckResponse call() {
        Optional<String> unavailable = caches.unavailable();
        HealthCheckResponseBuilder response = HealthCheckResponse.named("metadata-cluster").status(unavailable.isEmpty());
        unavailable.ifPresent(why -> response.withData("reason", why));
        if (unavailable.isEmpty()) {
            response.withData("members", caches.members()).withData("coordinator", caches.coordinator());
        }
        return response.build();
    }
}
