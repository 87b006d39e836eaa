package io.granary.preload.service;

import java.util.function.LongSupplier;

/**
 * A token bucket over bytes: callers take what they are about to ask workers to fill, and wait when the bucket is
 * empty, so preloads together never go faster than the limit and leave the store's bandwidth to training jobs.
 */
final class Throttle {

    private final double bytesPerSecond;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private double available;
    private long last;

    /** @param bytesPerSecond 0 or less: no limit */
    Throttle(long bytesPerSecond) {
        this(bytesPerSecond, System::nanoTime,
                nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)));
    }

    /** With the clock ({@link System#nanoTime} as it is) and the wait given, so a test can drive time. */
    Throttle(long bytesPerSecond, LongSupplier nanoTime, Sleeper sleeper) {
        this.bytesPerSecond = bytesPerSecond;
        this.available = bytesPerSecond;  // one second of burst
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
        this.last = nanoTime.getAsLong();
    }

    void acquire(long bytes) throws InterruptedException {
        if (bytesPerSecond <= 0) {
            return;
        }
        long waitNanos;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            available = Math.min(bytesPerSecond, available + (now - last) / 1e9 * bytesPerSecond);
            last = now;
            available -= bytes;  // may go negative: the debt is waited off here, by this caller
            waitNanos = available >= 0 ? 0 : (long) (-available / bytesPerSecond * 1e9);
        }
        if (waitNanos > 0) {
            sleeper.sleep(waitNanos);
        }
    }

    /** Waits that long, as {@link Thread#sleep} does. */
    interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }
}
