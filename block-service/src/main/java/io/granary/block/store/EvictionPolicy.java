package io.granary.block.store;

/**
 * Which block of a level goes first when the level passes its high watermark. One instance per level; the store
 * tells it what enters, what is read and what leaves. Implementations are thread-safe.
 */
public interface EvictionPolicy {

    void admitted(BlockKey key);

    void accessed(BlockKey key);

    void removed(BlockKey key);

    /** The next block to evict, left in place until {@link #removed}; null when the level holds nothing. */
    BlockKey victim();

    /** Makes one policy per level. */
    interface Factory {
        EvictionPolicy create();
    }
}
