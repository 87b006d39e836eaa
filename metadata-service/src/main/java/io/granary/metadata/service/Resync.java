package io.granary.metadata.service;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.metadata.store.DatasetRegistry;
import io.granary.metadata.store.MetadataCaches;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;

/** Keeps metadata fresh: a Bound dataset whose metadataTtl has passed since its last sync is listed again. */
@ApplicationScoped
public class Resync {

    private final DatasetRegistry registry;
    private final DatasetService datasets;
    private final MetadataCaches caches;
    private final Clock clock;

    Resync(DatasetRegistry registry, DatasetService datasets, MetadataCaches caches, Clock clock) {
        this.registry = registry;
        this.datasets = datasets;
        this.caches = caches;
        this.clock = clock;
    }

    @Scheduled(every = "${granary.metadata.resync-check:10s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void resyncStale() {
        if (!caches.coordinator()) {
            return;
        }
        for (Dataset dataset : registry.all()) {
            Duration ttl = dataset.spec().metadataTtlDuration();
            if (ttl != null && dataset.status().phase() == DatasetPhase.BOUND && dataset.status().syncedAt() != null
                    && dataset.status().syncedAt().plus(ttl).isBefore(clock.instant())
                    && !datasets.loading(dataset.name())) {
                datasets.sync(dataset.name());
            }
        }
    }
}
