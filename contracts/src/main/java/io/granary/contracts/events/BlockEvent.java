package io.granary.contracts.events;

import io.granary.contracts.worker.Medium;

import java.time.Instant;

/** A block cached, evicted or found corrupt on a worker; feeds the per-dataset and per-node statistics. */
public record BlockEvent(Type type, String workerId, String node, String dataset, String blockId, long bytes,
                         Medium medium, Instant at) {

    public enum Type {
        CACHED, EVICTED, CORRUPT
    }
}
