package io.granary.fuse.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What the mount served, at {@code /q/metrics}: bytes by where they came from ({@code local}: a block file on this
 * node, {@code memory}: a block held here, {@code owner}: a worker over HTTP, {@code understore}), read latency,
 * and metadata answered from this client's cache or asked of the metadata-service.
 */
public final class FuseMetrics {

    public static final String LOCAL = "local";
    public static final String MEMORY = "memory";
    public static final String OWNER = "owner";
    public static final String UNDER_STORE = "understore";

    private final Map<String, Counter> bytesBySource;
    private final Map<String, Counter> readsBySource;
    private final Timer latency;
    private final Counter metadataHits;
    private final Counter metadataMisses;
    private final Counter written;

    public FuseMetrics(MeterRegistry registry) {
        this.bytesBySource = Map.of(LOCAL, bytes(registry, LOCAL), MEMORY, bytes(registry, MEMORY),
                OWNER, bytes(registry, OWNER), UNDER_STORE, bytes(registry, UNDER_STORE));
        this.readsBySource = Map.of(LOCAL, reads(registry, LOCAL), MEMORY, reads(registry, MEMORY),
                OWNER, reads(registry, OWNER), UNDER_STORE, reads(registry, UNDER_STORE));
        this.latency = Timer.builder("granary.fuse.read.latency")
                .description("one read of the mount, every block of it")
                .publishPercentileHistogram().register(registry);
        this.metadataHits = registry.counter("granary.fuse.metadata.lookups", "result", "hit");
        this.metadataMisses = registry.counter("granary.fuse.metadata.lookups", "result", "miss");
        this.written = registry.counter("granary.fuse.written.bytes");
    }

    /** A block (or part of it) served from {@code source}. */
    public void served(String source, long bytes) {
        readsBySource.get(source).increment();
        bytesBySource.get(source).increment(bytes);
    }

    public void readTook(long nanos) {
        latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void metadataCache(boolean hit) {
        (hit ? metadataHits : metadataMisses).increment();
    }

    public void written(long bytes) {
        written.increment(bytes);
    }

    private static Counter bytes(MeterRegistry registry, String source) {
        return registry.counter("granary.fuse.read.bytes", "source", source);
    }

    private static Counter reads(MeterRegistry registry, String source) {
        return registry.counter("granary.fuse.reads", "source", source);
    }
}
