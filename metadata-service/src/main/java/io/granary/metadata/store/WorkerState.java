package io.granary.metadata.store;

import io.granary.contracts.events.ReadCounters;
import io.granary.contracts.worker.Worker;

import java.time.Duration;
import java.util.Map;

/**
 * A worker as membership knows it, with its latest read counters per dataset and the period it beats at.
 *
 * @param interval the worker's heartbeat period; null when it did not say (the sweep's own period stands in)
 */
public record WorkerState(Worker worker, Map<String, ReadCounters> reads, Duration interval) {

    public WorkerState {
        reads = reads == null ? Map.of() : Map.copyOf(reads);
    }
}
