package io.granary.metadata.service;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.metadata.config.MetadataConfig;
import io.granary.metadata.store.DatasetRegistry;
import io.granary.metadata.store.ListingLeases;
import io.granary.metadata.store.MetadataCaches;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;

/**
 * Keeps metadata fresh: a Bound dataset whose metadataTtl has passed since its last sync is listed again, and a
 * Pending dataset whose listing lapsed (its replica died mid-listing) is listed by the coordinator.
 */
@ApplicationScoped
public class Resync {

    private final DatasetRegistry registry;
    private final DatasetService datasets;
    private final MetadataCaches caches;
    private final Clock clock;
    private final ListingLeases leases;
    private final Duration leaseTtl;

    Resync(DatasetRegistry registry, DatasetService datasets, MetadataCaches caches, Clock clock, ListingLeases leases,
           MetadataConfig config) {
        this.registry = registry;
        this.datasets = datasets;
        this.caches = caches;
        this.clock = clock;
        this.leases = leases;
        // Renewed every sweep interval: missing as many renewals as a worker may miss heartbeats is a loss.
        this.leaseTtl = config.sweepInterval().multipliedBy(config.missedHeartbeats() + 1L);
    }

    @Scheduled(every = "${granary.metadata.resync-check:10s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void resyncStale() {
        if (!caches.coordinator()) {
            return;
        }
        for (Dataset dataset : registry.all()) {
            if (dataset.status().phase() == DatasetPhase.PENDING && !datasets.listing(dataset.name())
                    && dataset.status().createdAt().plus(leaseTtl).isBefore(clock.instant())
                    && leases.lapsed(dataset.name(), clock.instant(), leaseTtl)) {
                datasets.resume(dataset.name());
                continue;
            }
            Duration ttl = dataset.spec().metadataTtlDuration();
            if (ttl != null && dataset.status().phase() == DatasetPhase.BOUND && dataset.status().syncedAt() != null
                    && dataset.status().syncedAt().plus(ttl).isBefore(clock.instant())
                    && !datasets.listing(dataset.name())) {
                datasets.sync(dataset.name());
            }
        }
    }
}
