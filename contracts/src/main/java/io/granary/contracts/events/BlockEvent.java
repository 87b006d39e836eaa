package io.granary.contracts.events;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;
import io.granary.contracts.worker.Medium;

import java.time.Instant;

/**
 * Blocks of a dataset cached or evicted on a worker since its last event of that kind, or one block found corrupt;
 * feeds the per-dataset and per-node statistics. Cached and evicted blocks are summed per dataset and level, not
 * sent one by one: a cold pass caches thousands a second, and an event each cost the broker and the
 * metadata-service more CPU than the reads.
 *
 * @param blockId the block, for an event of one block (CORRUPT); null for a sum
 * @param blocks  how many blocks the event counts
 * @param bytes   their bytes
 */
public record BlockEvent(Type type, String workerId, String node, String dataset, String blockId, int blocks,
                         long bytes, Medium medium, Instant at) implements Validated<BlockEvent> {

    @Override
    public BlockEvent validate() {
        Check.required("type", type);
        Check.required("dataset", dataset);
        Check.required("node", node);
        Check.required("workerId", workerId);
        if (blocks < 0) {
            throw new ValidationException("blocks", "must not be negative");
        }
        if (bytes < 0) {
            throw new ValidationException("bytes", "must not be negative");
        }
        return this;
    }

    public enum Type {
        CACHED, EVICTED, CORRUPT
    }
}
