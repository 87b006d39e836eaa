package io.granary.block.metrics;

import io.granary.contracts.events.ReadCounters;
import io.granary.contracts.worker.Medium;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What this worker served and fetched since it started: the totals heartbeats carry (so a lost heartbeat loses
 * nothing) and the same figures as Prometheus meters, all registered at zero when the worker starts. Bytes are
 * counted by where they came from: {@code granary_block_served_bytes_total{source}} (a level, the under-store read
 * through, or the worker's files read by a gateway on its node) and {@code granary_block_fetched_bytes_total{source}}
 * (the under-store or a peer). Meters are created once; the hot path only adds. Requests to the under-store are
 * counted by operation where every service counts them ({@code granary_understore_requests_total}).
 */
@Startup
@ApplicationScoped
public class ReadStats {

    /** Served bytes read through from the under-store, not stored; fetched bytes from it. */
    static final String UNDER_STORE = "understore";
    /** Served bytes a gateway on this node read from this worker's files itself. */
    static final String SHORT_CIRCUIT = "shortcircuit";
    /** Fetched bytes another worker handed over. */
    static final String PEER = "peer";

    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder bytesServed = new LongAdder();
    private final LongAdder underStoreReads = new LongAdder();
    private final LongAdder underStoreBytes = new LongAdder();
    private final Map<String, DatasetReads> datasets = new ConcurrentHashMap<>();

    private final Map<Medium, Counter> hitsByLevel = new EnumMap<>(Medium.class);
    private final Map<Medium, Counter> servedByLevel = new EnumMap<>(Medium.class);
    private final Map<Medium, Counter> evictionsByLevel = new EnumMap<>(Medium.class);
    private final Counter missCounter;
    private final Counter bypassCounter;
    private final Counter bypassBytes;
    private final Counter shortCircuitBytes;
    private final Counter peerFills;
    private final Counter peerBytes;
    private final Counter underStoreBytesCounter;
    private final Timer underStoreLatency;
    private final Counter singleFlightWaits;
    private final Counter corrupt;

    ReadStats(MeterRegistry registry) {
        for (Medium medium : Medium.values()) {
            hitsByLevel.put(medium, registry.counter("granary.block.reads", "result", "hit", "level", medium.name()));
            servedByLevel.put(medium, served(registry, medium.name()));
            evictionsByLevel.put(medium, registry.counter("granary.block.evictions", "level", medium.name()));
        }
        missCounter = registry.counter("granary.block.reads", "result", "miss", "level", "none");
        bypassCounter = registry.counter("granary.block.reads", "result", "bypass", "level", "none");
        bypassBytes = served(registry, UNDER_STORE);
        shortCircuitBytes = served(registry, SHORT_CIRCUIT);
        peerFills = registry.counter("granary.block.peer.fills");
        peerBytes = fetched(registry, PEER);
        underStoreBytesCounter = fetched(registry, UNDER_STORE);
        underStoreLatency = Timer.builder("granary.understore.read.latency")
                .description("time until the under-store answers a block read").publishPercentileHistogram()
                .register(registry);
        singleFlightWaits = registry.counter("granary.block.singleflight.waits");
        corrupt = registry.counter("granary.block.corrupt");
    }

    private static Counter served(MeterRegistry registry, String source) {
        return Counter.builder("granary.block.served").baseUnit(BaseUnits.BYTES).tag("source", source)
                .description("bytes sent to readers, by where they came from").register(registry);
    }

    private static Counter fetched(MeterRegistry registry, String source) {
        return Counter.builder("granary.block.fetched").baseUnit(BaseUnits.BYTES).tag("source", source)
                .description("bytes of blocks this worker fetched to fill them, by where from").register(registry);
    }

    public void hit(String dataset, Medium level) {
        hits(dataset, level, 1);
    }

    /** A read that found no block: it was filled now, or served from the under-store. */
    public void miss(String dataset, boolean stored) {
        misses.increment();
        (stored ? missCounter : bypassCounter).increment();
        reads(dataset).misses.increment();
    }

    /** Reads of one block that the gateway on this node served from its file (short-circuit). */
    public void hits(String dataset, Medium level, int count) {
        hits.add(count);
        hitsByLevel.get(level).increment(count);
        reads(dataset).hits.add(count);
    }

    /** Reads that the gateway on this node served from block files this worker filled for them. */
    public void misses(String dataset, int count) {
        if (count > 0) {
            misses.add(count);
            missCounter.increment(count);
            reads(dataset).misses.add(count);
        }
    }

    /** Bytes this worker sent a reader of the dataset, from a level or ({@code level} null) the under-store. */
    public void served(String dataset, long bytes, Medium level) {
        bytesServed.add(bytes);
        reads(dataset).bytes.add(bytes);
        (level == null ? bypassBytes : servedByLevel.get(level)).increment(bytes);
    }

    /** Bytes a reader on this node read from this worker's files itself (short-circuit). */
    public void servedShortCircuit(String dataset, long bytes) {
        if (bytes > 0) {
            bytesServed.add(bytes);
            reads(dataset).bytes.add(bytes);
            shortCircuitBytes.increment(bytes);
        }
    }

    public void underStoreRead(Duration latency) {
        underStoreReads.increment();
        underStoreLatency.record(latency);
    }

    public void underStoreBytes(long bytes) {
        underStoreBytes.add(bytes);
        underStoreBytesCounter.increment(bytes);
    }

    /** A block taken from the worker that held it, not from the under-store. */
    public void peerFill(long bytes) {
        peerFills.increment();
        peerBytes.increment(bytes);
    }

    public void singleFlightWait() {
        singleFlightWaits.increment();
    }

    public void evicted(Medium level) {
        evictionsByLevel.get(level).increment();
    }

    public void corrupt() {
        corrupt.increment();
    }

    public long hits() {
        return hits.sum();
    }

    public long misses() {
        return misses.sum();
    }

    public long bytesServed() {
        return bytesServed.sum();
    }

    public long underStoreBytesRead() {
        return underStoreBytes.sum();
    }

    public long underStoreReadCount() {
        return underStoreReads.sum();
    }

    public Map<String, ReadCounters> byDataset() {
        Map<String, ReadCounters> counters = new TreeMap<>();
        datasets.forEach((name, reads) -> counters.put(name, new ReadCounters(reads.hits.sum(), reads.misses.sum(),
                reads.bytes.sum())));
        return counters;
    }

    private DatasetReads reads(String dataset) {
        return datasets.computeIfAbsent(dataset, name -> new DatasetReads());
    }

    private static final class DatasetReads {
        final LongAdder hits = new LongAdder();
        final LongAdder misses = new LongAdder();
        final LongAdder bytes = new LongAdder();
    }
}
