package io.granary.block.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * TinyLFU's admission (Einziger, Friedman, Manes, 2017), for epochs: a block not held replaces the victim only if
 * it was read more than {@code margin} times more often lately, or if nobody read the victim's dataset for
 * {@code idleAfter}. Every block of a shuffled dataset is read once an epoch, so a newcomer is never read more than
 * the block it would push out: what filled the cache stays, and each epoch finds cache/dataset of it (as CoorDL
 * keeps it); the margin keeps the sketch's counts, which lag by part of an epoch, from trading blocks back and
 * forth. A block read much more often still gets in, a scan read once never does, and a dataset nobody reads any
 * more gives its place to the one read now.
 */
public final class TinyLfuAdmission implements Admission {

    /**
     * The store's margin. Blocks read as often differ by up to two: one for this epoch's read (made by the newcomer,
     * not yet by the victim), one for the sketch's halving, which rounds a count read just before it down and one
     * read just after it up. A margin of one let a halving in a dataset's first epoch (the sketch filled by other
     * datasets' reads before) trade held blocks in the second: 0.42 of its reads where 0.50 fits, in the simulator
     * and through the mount alike.
     */
    public static final int MARGIN = 2;

    private final FrequencySketch sketch;
    private final int margin;
    private final long idleAfter;
    private final LongSupplier now;
    /** When each dataset was last read, in {@code now}'s units. */
    private final Map<String, Long> lastRead = new ConcurrentHashMap<>();

    /**
     * @param capacity  about how many blocks the cache holds
     * @param margin    how many reads more a newcomer needs than the victim
     * @param idleAfter how long a dataset unread gives up its blocks to any newcomer, in {@code now}'s units
     * @param now       the clock: nanoseconds in the store, reads in the simulator
     */
    public TinyLfuAdmission(long capacity, int margin, long idleAfter, LongSupplier now) {
        this.sketch = new FrequencySketch(capacity);
        this.margin = margin;
        this.idleAfter = idleAfter;
        this.now = now;
    }

    @Override
    public void recorded(BlockKey key) {
        sketch.increment(key);
        lastRead.put(key.dataset(), now.getAsLong());
    }

    @Override
    public boolean admits(BlockKey candidate, BlockKey victim) {
        if (!candidate.dataset().equals(victim.dataset()) && idle(victim.dataset())) {
            return true;
        }
        return sketch.frequency(candidate) > sketch.frequency(victim) + margin;
    }

    @Override
    public boolean idle(String dataset) {
        Long read = lastRead.get(dataset);
        return read == null || now.getAsLong() - read > idleAfter;
    }
}
