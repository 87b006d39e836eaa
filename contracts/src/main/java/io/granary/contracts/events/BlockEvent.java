package io.granary.contracts.events;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;
import io.granary.contracts.worker.Medium;

import java.time.Instant;

/** A block cached, evicted or found corrupt on a worker; feeds the per-dataset and per-node statistics. */
public record BlockEvent(Type type, String workerId, String node, String dataset, String blockId, long bytes,
                         Medium medium, Instant at) implements Validated<BlockEvent> {

    @Override
    public BlockEvent validate() {
        Check.required("type", type);
        Check.required("dataset", dataset);
        Check.required("node", node);
        Check.required("workerId", workerId);
        if (bytes < 0) {
            throw new ValidationException("bytes", "must not be negative");
        }
        return this;
    }

    public enum Type {
        CACHED, EVICTED, CORRUPT
    }
}
