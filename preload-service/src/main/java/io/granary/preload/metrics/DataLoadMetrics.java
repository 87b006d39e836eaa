package io.granary.preload.metrics;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What the DataLoads of this replica did: files and bytes preloaded ({@code granary_preload_loaded_files_total},
 * {@code granary_preload_loaded_bytes_total}), loads by phase ({@code granary_preload_loads{phase}}) and the rate
 * all running loads fill at ({@code granary_preload_throughput_bytes_per_second}).
 */
@ApplicationScoped
public class DataLoadMetrics {

    private final MeterRegistry registry;
    private final Counter bytesPreloaded;
    private final Counter filesPreloaded;

    DataLoadMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.bytesPreloaded = Counter.builder("granary.preload.loaded.bytes")
                .description("bytes the DataLoads of this replica loaded").register(registry);
        this.filesPreloaded = Counter.builder("granary.preload.loaded.files")
                .description("files the DataLoads of this replica loaded").register(registry);
    }

    /** The gauges read the loads' statuses whenever they are scraped. */
    public void watch(Supplier<Stream<DataLoadStatus>> statuses) {
        for (DataLoadPhase phase : DataLoadPhase.values()) {
            Gauge.builder("granary.preload.loads", statuses, all -> all.get()
                    .filter(status -> status.phase() == phase).count()).tag("phase", phase.name()).register(registry);
        }
        Gauge.builder("granary.preload.throughput.bytes.per.second", statuses, all -> all.get()
                        .filter(status -> status.phase() == DataLoadPhase.LOADING)
                        .mapToDouble(DataLoadStatus::bytesPerSecond).sum())
                .description("bytes per second all running loads fill").register(registry);
    }

    /** A run ended: what it loaded counts. */
    public void ran(DataLoadStatus last) {
        bytesPreloaded.increment(last.bytesDone());
        filesPreloaded.increment(last.filesDone());
    }
}
