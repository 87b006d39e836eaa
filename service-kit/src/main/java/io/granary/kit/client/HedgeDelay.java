package io.granary.kit.client;

import java.time.Duration;
import java.util.Arrays;

/**
 * How long a reader waits on a block's owner that gives nothing before it reads on elsewhere (the next owner, then
 * the under-store) and suspects it: four times the 99th percentile of the last 256 first-byte times of owners'
 * answers to this process, within [{@code hedge-min}, {@code hedge-max}]. A fixed limit either waits seconds on a
 * node that was cut off or gives up on owners that are only busy; the recent answers say what silent means now.
 */
public final class HedgeDelay {

    static final int SAMPLES = 256;
    private static final int FACTOR = 4;
    /** Answers between two looks at the percentile, and how many are needed before the first: the most is waited. */
    private static final int EVERY = 16;

    private final long minNanos;
    private final long maxNanos;
    private final long[] samples = new long[SAMPLES];
    private long count;
    private volatile long delayNanos;

    public HedgeDelay(Duration min, Duration max) {
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("hedge delays need 0 <= min <= max, not " + min + " and " + max);
        }
        this.minNanos = min.toNanos();
        this.maxNanos = max.toNanos();
        this.delayNanos = maxNanos;
    }

    /** An owner's answer began this long after it was asked. */
    public synchronized void firstByte(long nanos) {
        samples[(int) (count % SAMPLES)] = nanos;
        count++;
        if (count % EVERY == 0) {
            long[] sorted = Arrays.copyOf(samples, (int) Math.min(count, SAMPLES));
            Arrays.sort(sorted);
            long p99 = sorted[(int) Math.ceil(sorted.length * 0.99) - 1];
            delayNanos = Math.max(minNanos, Math.min(maxNanos, FACTOR * p99));
        }
    }

    /** How long a silent owner is waited on now. */
    public Duration delay() {
        return Duration.ofNanos(delayNanos);
    }

    public long millis() {
        return Math.max(1, delayNanos / 1_000_000);
    }
}
