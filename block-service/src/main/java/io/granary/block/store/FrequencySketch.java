package io.granary.block.store;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How often each block was read lately, approximately and in little memory (TinyLFU's count-min sketch, as
 * Caffeine has it): four 4-bit counters per block, in a table of longs sixteen counters each; a block's frequency is
 * the least of its four. A read raises only those of its four counters that hold that least value (conservative
 * update): a dataset many times the cache, each of its blocks read once an epoch, fills every counter with other
 * blocks' reads, and raising all four would make blocks read once look read twice and trade them for the blocks
 * held (at 50 times the cache, a shuffled epoch kept 0.007-0.012 of its reads where 0.02 is the bound; 0.016-0.017
 * now). Every {@code 10 x capacity} reads all counters are halved, so what was read often long ago counts less
 * than what is read now. Lock-free: a lost increment under a race only makes a count a little low.
 */
public final class FrequencySketch {

    private static final long[] SEEDS = {0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL,
            0xcbf29ce484222325L};
    private static final long RESET_MASK = 0x7777777777777777L;

    private final AtomicLongArray table;
    private final int mask;
    private final int sampleSize;
    private final AtomicInteger additions = new AtomicInteger();

    /**
     * @param capacity about how many blocks the cache holds: the table has a long (sixteen counters) for each, so a
     *                 block read once is seldom counted more (about 1 in 400); at most 2^22 longs, 32 MiB
     */
    public FrequencySketch(long capacity) {
        int longs = (int) Math.min(1 << 22, Long.highestOneBit(Math.max(16, capacity) - 1) << 1);
        this.table = new AtomicLongArray(longs);
        this.mask = longs - 1;
        this.sampleSize = (int) Math.min(Integer.MAX_VALUE / 2, 10L * Math.max(16, capacity));
    }

    /** The block's estimated reads since the counts were last halved, 0 to 15. */
    public int frequency(BlockKey key) {
        long hash = spread(key.hashCode());
        int frequency = 15;
        for (int i = 0; i < 4; i++) {
            long h = rehash(hash, i);
            frequency = Math.min(frequency, counter(table.get(index(h)), offset(h)));
        }
        return frequency;
    }

    /** Counts one read of the block: its least counters go up by one. */
    public void increment(BlockKey key) {
        long hash = spread(key.hashCode());
        int[] indexes = new int[4];
        int[] offsets = new int[4];
        int least = 15;
        for (int i = 0; i < 4; i++) {
            long h = rehash(hash, i);
            indexes[i] = index(h);
            offsets[i] = offset(h);
            least = Math.min(least, counter(table.get(indexes[i]), offsets[i]));
        }
        boolean added = false;
        for (int i = 0; i < 4; i++) {
            if (counter(table.get(indexes[i]), offsets[i]) == least) {
                added |= incrementAt(indexes[i], offsets[i]);
            }
        }
        if (added && additions.incrementAndGet() >= sampleSize) {
            reset();
        }
    }

    private boolean incrementAt(int index, int offset) {
        long mask = 0xfL << offset;
        for (long value = table.get(index); (value & mask) != mask; value = table.get(index)) {
            if (table.compareAndSet(index, value, value + (1L << offset))) {
                return true;
            }
        }
        return false;  // already 15
    }

    /** Halves every counter: the sketch ages, and its counts stay within four bits. */
    private void reset() {
        additions.set(0);
        for (int i = 0; i < table.length(); i++) {
            for (long value = table.get(i); !table.compareAndSet(i, value, (value >>> 1) & RESET_MASK); ) {
                value = table.get(i);
            }
        }
    }

    private int index(long h) {
        return (int) (h >>> 32) & mask;
    }

    /** Which of the sixteen counters of a long, as a bit offset. */
    private static int offset(long h) {
        return ((int) h & 15) << 2;
    }

    private static int counter(long value, int offset) {
        return (int) ((value >>> offset) & 0xf);
    }

    private static long spread(int hashCode) {
        long h = hashCode * 0x9e3779b97f4a7c15L;
        return h ^ (h >>> 29);
    }

    private static long rehash(long hash, int i) {
        long h = (hash + SEEDS[i]) * SEEDS[(i + 1) & 3];
        return h ^ (h >>> 31);
    }
}
