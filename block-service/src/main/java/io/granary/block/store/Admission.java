package io.granary.block.store;

/**
 * Whether a block that is not held may take the place of the block the store would have to drop for it, asked only
 * when the store is full. The eviction policy says which block goes first; admission says whether anything goes at
 * all, which is what keeps a dataset larger than the cache from washing it out every epoch.
 */
public interface Admission {

    /** Told of every read of a block, held or not: what an admission that counts reads learns from. */
    void recorded(BlockKey key);

    /** Whether {@code candidate}, not held, should replace {@code victim}, the block that would leave for it. */
    boolean admits(BlockKey candidate, BlockKey victim);

    /** Whether nobody read the dataset lately: its blocks give way to any other's, its share too. Never, by default. */
    default boolean idle(String dataset) {
        return false;
    }

    /** Every block is admitted: the policy's victim leaves for it (plain LRU, CLOCK). */
    Admission ALWAYS = new Admission() {
        @Override
        public void recorded(BlockKey key) {
        }

        @Override
        public boolean admits(BlockKey candidate, BlockKey victim) {
            return true;
        }
    };

    /**
     * Once full, nothing displaces what is held (CoorDL's cache for epochs of a shuffled dataset): each epoch finds
     * the blocks that filled it, cache/dataset of them, whatever the order. A block leaves only when its file changes,
     * its cache is freed or it is moved down a level.
     */
    Admission KEEP = new Admission() {
        @Override
        public void recorded(BlockKey key) {
        }

        @Override
        public boolean admits(BlockKey candidate, BlockKey victim) {
            return false;
        }
    };
}
