package io.granary.metadata.store;

import io.granary.contracts.events.ReadCounters;
import io.granary.contracts.worker.Worker;

import java.util.Map;

/** A worker as membership knows it, with its latest read counters per dataset. */
public record WorkerState(Worker worker, Map<String, ReadCounters> reads) {

    public WorkerState {
        reads = reads == null ? Map.of() : Map.copyOf(reads);
    }
}
