package io.granary.kit.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * How a reader of blocks (the gateway, the FUSE client) treats their owners, under {@code granary.read}: one group,
 * so the two read a dataset alike.
 */
@ConfigMapping(prefix = "granary.read")
public interface ReadConfig {

    /**
     * How long a fill a reader waits on (a block's {@code HEAD}, a batch for a reader) may take before its owner is
     * passed over. A read's owner that gives no byte is given up far sooner: {@link #hedgeMin()}.
     */
    @WithDefault("10s")
    Duration ownerTimeout();

    /**
     * The least a reader waits on an owner that gives no byte before it reads on from the next owner or the
     * under-store (and checks whether it is alive: one that does not answer that either is suspected); the wait is
     * four times the recent 99th percentile of owners' first-byte times, no less than this (a miss's first byte
     * comes from the store, which is slow at times) and no more than {@link #hedgeMax()}.
     */
    @WithDefault("1s")
    Duration hedgeMin();

    /**
     * The most a reader waits on an owner that gives no byte (also the wait before any answer was timed): on cores
     * so busy that a first byte's 99th percentile passes 375 ms, a cut node's reads wait this, then the store's.
     */
    @WithDefault("1500ms")
    Duration hedgeMax();

    /** An owner that failed is passed over (placement picks the next) for this long. */
    @WithDefault("10s")
    Duration suspectFor();

    /** Blocks asked for ahead of the one being read, when a file (or one response) is read in sequence. */
    @WithDefault("2")
    int readAhead();

    /** How often the live-worker list is re-read (it is also re-read on every membership event). */
    @WithDefault("5s")
    Duration membershipRefresh();

    /**
     * How often the reads served from workers' files on this node are reported to them (their policies, hit ratio,
     * and how far an epoch plan's reader got: the prefetch runs ahead of the position this reports, so it lags by it).
     */
    @WithDefault("100ms")
    Duration reportInterval();

    /**
     * How often the block files a reader keeps open are checked against their names: one whose block was evicted or
     * freed since its last read is closed, so its space (memory, for a memory level) is given back within this, not
     * held until it is read again or pushed out.
     */
    @WithDefault("5s")
    Duration openFilesCheck();
}
