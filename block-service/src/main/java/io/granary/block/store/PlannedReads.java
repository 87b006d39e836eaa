package io.granary.block.store;

/**
 * What the epoch plans on this worker know of a block's future in the epoch under way: read already (spent: the
 * first to leave, as Belady would have it, since no plan reads it again before the next epoch) or still ahead (kept,
 * and admitted for a spent block's room). Blocks of no plan are left to the eviction policy.
 */
public interface PlannedReads {

    /** Told of every read the store counts; true when this read spent the block. */
    boolean read(BlockKey key);

    /** Whether every plan that reads the block this epoch has read it (false when no plan reads it). */
    boolean spent(BlockKey key);

    /** Whether some plan reads the block later this epoch. */
    boolean ahead(BlockKey key);

    /** How long a block stays after the read that spent it: its reader may still have to open its file. */
    default long graceNanos() {
        return 0;
    }

    PlannedReads NONE = new PlannedReads() {
        @Override
        public boolean read(BlockKey key) {
            return false;
        }

        @Override
        public boolean spent(BlockKey key) {
            return false;
        }

        @Override
        public boolean ahead(BlockKey key) {
            return false;
        }
    };
}
