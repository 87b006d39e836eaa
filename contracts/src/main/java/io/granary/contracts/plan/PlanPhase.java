package io.granary.contracts.plan;

/** Where an epoch plan's prefetch is. */
public enum PlanPhase {
    /** Fetching ahead of the reader. */
    Prefetching,
    /** The reader read past the plan's last file. */
    Done,
    /** The next epoch's plan of the same job and rank took its place. */
    Replaced,
    /** Its reader never came, or stopped: nothing was read for {@code granary.preload.plan.expire-after}. */
    Expired,
    /** Ended by {@code DELETE}. */
    Ended,
    /** Its files could not be placed or fetched (no live worker). */
    Failed
}
