package io.granary.metadata.service;

import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.ReadCounters;
import io.granary.metadata.store.CachedBytes;
import io.granary.metadata.store.WorkerRegistry;
import io.granary.metadata.store.WorkerState;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Map;

/**
 * Cached bytes per dataset and node (block events as they happen, corrected by each heartbeat's totals) and hit
 * ratios (from the workers' heartbeats).
 */
@ApplicationScoped
public class CacheStatistics {

    private final CachedBytes cachedBytes;
    private final WorkerRegistry workers;

    CacheStatistics(CachedBytes cachedBytes, WorkerRegistry workers) {
        this.cachedBytes = cachedBytes;
        this.workers = workers;
    }

    public void record(BlockEvent event) {
        long delta = switch (event.type()) {
            case CACHED -> event.bytes();
            case EVICTED, CORRUPT -> -event.bytes();
        };
        cachedBytes.add(event.dataset(), event.node(), event.workerId(), delta);
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
}
