package io.granary.metadata.service;

import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.ReadCounters;
import io.granary.metadata.store.CachedBytes;
import io.granary.metadata.store.WorkerRegistry;
import io.granary.metadata.store.WorkerState;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cached bytes per dataset and node (block events as they happen, corrected by each heartbeat's totals) and hit
 * ratios (from the workers' heartbeats).
 */
@ApplicationScoped
public class CacheStatistics {

    private final CachedBytes cachedBytes;
    private final WorkerRegistry workers;
    private final Map<Owner, AtomicLong> pending = new ConcurrentHashMap<>();

    CacheStatistics(CachedBytes cachedBytes, WorkerRegistry workers) {
        this.cachedBytes = cachedBytes;
        this.workers = workers;
    }

    /**
     * Adds the event to deltas written to the replicated cache twice a second: a preload caches thousands of blocks a
     * second, and one synchronous replicated write each would cost more than the blocks. A replica that dies loses
     * half a second of deltas, which the workers' next heartbeats put right.
     */
    public void record(BlockEvent event) {
        long delta = switch (event.type()) {
            case CACHED -> event.bytes();
            case EVICTED, CORRUPT -> -event.bytes();
        };
        pending.computeIfAbsent(new Owner(event.dataset(), event.node(), event.workerId()), owner -> new AtomicLong())
                .addAndGet(delta);
    }

    @Scheduled(every = "0.5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void flush() {
        pending.forEach((owner, delta) -> {
            long bytes = delta.getAndSet(0);  // atomic: an event recorded meanwhile lands in the next flush
            if (bytes != 0) {
                cachedBytes.add(owner.dataset(), owner.node(), owner.worker(), bytes);
            }
        });
    }

    private record Owner(String dataset, String node, String worker) {
    }

    /** A heartbeat that reports what the worker holds replaces what its block events added up. */
    public void record(HeartbeatEvent heartbeat) {
        if (heartbeat.cachedBytes() != null) {
            cachedBytes.set(heartbeat.node(), heartbeat.workerId(), heartbeat.cachedBytes());
        }
    }

    /** Cached bytes of one dataset per node, most first: what the scheduler-hook weighs nodes by. */
    public List<NodeCache> nodes(String dataset) {
        List<WorkerState> all = workers.all();
        return cachedBytes.byNode(dataset).entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(entry -> new NodeCache(entry.getKey(), entry.getValue(), all.stream()
                        .filter(state -> state.worker().node().equals(entry.getKey()))
                        .map(state -> state.worker().id()).toList()))
                .toList();
    }

    /** Hits over block reads of the dataset on all workers; null before its first read. */
    public Double hitRatio(String dataset) {
        long hits = 0;
        long reads = 0;
        for (WorkerState state : workers.all()) {
            ReadCounters counters = state.reads().get(dataset);
            if (counters != null) {
                hits += counters.hits();
                reads += counters.hits() + counters.misses();
            }
        }
        return reads == 0 ? null : (double) hits / reads;
    }

    /** Bytes readers of the dataset got from all workers, as their last heartbeats counted them. */
    public long bytesRead(String dataset) {
        return workers.all().stream().map(state -> state.reads().get(dataset)).filter(Objects::nonNull)
                .mapToLong(ReadCounters::bytes).sum();
    }
}
