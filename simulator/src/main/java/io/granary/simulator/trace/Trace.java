package io.granary.simulator.trace;

import io.granary.block.store.BlockKey;

/**
 * Block reads in the order a cache sees them, cut into epochs. Reads are indices into {@code keys}, so a replay of
 * ten million reads makes no object per read.
 *
 * @param keys        every block read, once each
 * @param reads       the reads, as indices into {@code keys}
 * @param epochStarts where each epoch begins in {@code reads}, ascending, the first 0
 */
public record Trace(String name, BlockKey[] keys, int[] reads, int[] epochStarts) {

    public Trace {
        if (epochStarts.length == 0 || epochStarts[0] != 0) {
            throw new IllegalArgumentException("a trace's first epoch starts at its first read");
        }
    }

    public int epochs() {
        return epochStarts.length;
    }

    /** Where epoch {@code epoch} ends: the next one's start, or the trace's end. */
    public int epochEnd(int epoch) {
        return epoch + 1 < epochStarts.length ? epochStarts[epoch + 1] : reads.length;
    }

    /** The distinct blocks read: what a cache/dataset ratio is a ratio of. */
    public int blocks() {
        return keys.length;
    }
}
