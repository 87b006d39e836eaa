package io.granary.metadata.metrics;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import io.granary.metadata.service.DatasetService;
import io.granary.metadata.store.WorkerRegistry;
import io.granary.metadata.store.WorkerState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Objects;

/**
 * What an autoscaler scales the workers on (Fluid's {@code capacity_used_rate}): {@code granary_cache_used_ratio},
 * bytes the owning workers hold over their quota, and {@code granary_cache_hit_ratio}, their hits over block reads;
 * per dataset, {@code granary_dataset_cached_ratio} (its cached bytes over its size) and
 * {@code granary_dataset_hit_ratio}. Every replica exports the same values, from the replicated state. The cluster's
 * are computed when scraped; the datasets' every few seconds, as datasets come and go.
 */
@Startup
@ApplicationScoped
public class CacheGauges {

    private final DatasetService datasets;
    private final WorkerRegistry workers;
    private final MultiGauge cachedRatio;
    private final MultiGauge hitRatio;

    CacheGauges(MeterRegistry metrics, DatasetService datasets, WorkerRegistry workers) {
        this.datasets = datasets;
        this.workers = workers;
        Gauge.builder("granary.cache.used.ratio", this, CacheGauges::usedRatio)
                .description("Bytes cached on the owning workers over their quota, 0-1").register(metrics);
        Gauge.builder("granary.cache.hit.ratio", this, CacheGauges::clusterHitRatio)
                .description("Cache hits over block reads on the owning workers since they started, 0-1")
                .register(metrics);
        cachedRatio = MultiGauge.builder("granary.dataset.cached.ratio")
                .description("A dataset's cached bytes over its size, as its cachedPercentage / 100 (each replica counts)")
                .register(metrics);
        hitRatio = MultiGauge.builder("granary.dataset.hit.ratio")
                .description("A dataset's cache hits over its block reads, 0-1").register(metrics);
    }

    @Scheduled(every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        List<Dataset> all = datasets.list();
        cachedRatio.register(all.stream().filter(dataset -> dataset.status().ufsTotalBytes() > 0)
                .map(dataset -> MultiGauge.Row.of(Tags.of("dataset", dataset.name()),
                        (double) dataset.status().cachedBytes() / dataset.status().ufsTotalBytes()))
                .toList(), true);
        hitRatio.register(all.stream().filter(dataset -> dataset.status().hitRatio() != null)
                .map(dataset -> MultiGauge.Row.of(Tags.of("dataset", dataset.name()), dataset.status().hitRatio()))
                .toList(), true);
    }

    /** NaN without an owning worker: no ratio, rather than a 0 an autoscaler would act on. */
    double usedRatio() {
        long quota = 0;
        long used = 0;
        for (Worker worker : owning()) {
            for (WorkerLevel level : worker.levels()) {
                quota += level.quotaBytes();
                used += level.usedBytes();
            }
        }
        return quota == 0 ? Double.NaN : (double) used / quota;
    }

    double clusterHitRatio() {
        long hits = 0;
        long reads = 0;
        for (Worker worker : owning()) {
            hits += worker.hits();
            reads += worker.hits() + worker.misses();
        }
        return reads == 0 ? Double.NaN : (double) hits / reads;
    }

    private List<Worker> owning() {
        return workers.all().stream().map(WorkerState::worker).filter(Objects::nonNull).filter(Worker::owns).toList();
    }
}
