package io.granary.block.rest;

import io.granary.contracts.events.ReadCounters;
import io.granary.contracts.worker.WorkerLevel;

import java.util.List;
import java.util.Map;

/** {@code GET /blocks/stats}: what the worker holds and what it served since it started. */
public record WorkerStats(String workerId, List<WorkerLevel> levels, int blocks, Map<String, Long> cachedBytes, long hits,
                          long misses, long bytesServed, long underStoreReads, long underStoreBytesRead,
                          Map<String, ReadCounters> datasets) {
}
