package io.granary.block.store;

/** What the store tells the rest of the worker: blocks that entered, left, or were found damaged, and reads. */
public interface BlockListener {

    /** A read the store counted, held or not ({@link ReadTrace} records them); nothing by default. */
    default void read(BlockKey key) {
    }

    void cached(StoredBlock block);

    void evicted(StoredBlock block);

    /** The block failed its checksum (or lost its sidecar) and was dropped. */
    void corrupt(StoredBlock block);

    BlockListener NONE = new BlockListener() {
        @Override
        public void cached(StoredBlock block) {
        }

        @Override
        public void evicted(StoredBlock block) {
        }

        @Override
        public void corrupt(StoredBlock block) {
        }
    };
}
