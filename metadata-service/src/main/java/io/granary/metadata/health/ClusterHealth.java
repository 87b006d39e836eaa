package io.granary.metadata.health;

import io.granary.metadata.store.MetadataCaches;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready once this replica's Infinispan node has started and joined (or formed) the metadata cluster. */
@Readiness
@ApplicationScoped
public class ClusterHealth implements HealthCheck {

    private final MetadataCaches caches;

    ClusterHealth(MetadataCaches caches) {
        this.caches = caches;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("metadata-cluster").up()
                .withData("members", caches.members())
                .withData("coordinator", caches.coordinator())
                .build();
    }
}
