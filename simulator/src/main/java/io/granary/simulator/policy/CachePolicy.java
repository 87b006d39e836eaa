package io.granary.simulator.policy;

/** A cache of a fixed number of blocks, replayed one read at a time. */
public interface CachePolicy {

    /**
     * One read of block {@code key} (an index into the trace's keys), at position {@code position} of the trace.
     *
     * @return whether it was a hit; on a miss the policy decides whether the block is kept
     */
    boolean read(int key, int position);
}
