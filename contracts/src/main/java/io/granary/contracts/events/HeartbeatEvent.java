package io.granary.contracts.events;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.WorkerLevel;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A worker's periodic report. Counters are totals since the worker started, so a lost heartbeat loses nothing.
 *
 * @param hits                block reads served from cache
 * @param misses              block reads that went to the under-store
 * @param bytesServed         bytes sent to readers
 * @param underStoreBytesRead bytes fetched from the under-store
 * @param datasets            hits and misses per dataset, from which each dataset's hit ratio is computed
 * @param startedAt           when the worker process started
 * @param drain               its drain, when it is leaving; null otherwise
 * @param cachedBytes         bytes the worker holds per dataset, the whole truth: it replaces what block events
 *                            added up (they may be lost or delivered twice); null when the worker does not report it
 * @param interval            how often this worker beats: it is late, and then dead, by its own period, so no
 *                            setting of the metadata-service has to agree with it; null from a worker that does not say
 */
public record HeartbeatEvent(String workerId, String node, String address, Map<String, String> labels,
                             List<WorkerLevel> levels, long hits, long misses, long bytesServed, long underStoreBytesRead,
                             Map<String, ReadCounters> datasets, Map<String, Long> cachedBytes, Instant startedAt,
                             DrainStatus drain, Duration interval, Instant at)
        implements Validated<HeartbeatEvent> {

    public HeartbeatEvent {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        levels = levels == null ? List.of() : List.copyOf(levels);
        datasets = datasets == null ? Map.of() : Map.copyOf(datasets);
        cachedBytes = cachedBytes == null ? null : Map.copyOf(cachedBytes);
    }

    @Override
    public HeartbeatEvent validate() {
        Check.required("workerId", workerId);
        Check.required("node", node);
        Check.required("address", address);
        return this;
    }
}
