package io.granary.preload.service;

/**
 * A token bucket over bytes: callers take what they are about to ask workers to fill, and wait when the bucket is
 * empty, so preloads together never go faster than the limit and leave the store's bandwidth to training jobs.
 */
final class Throttle {

    private final double bytesPerSecond;
    private double available;
    private long last = System.nanoTime();

    /** @param bytesPerSecond 0 or less: no limit */
    Throttle(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
        this.available = bytesPerSecond;  // one second of burst
    }

    void acquire(long bytes) throws InterruptedException {
        if (bytesPerSecond <= 0) {
            return;
        }
        long waitNanos;
        synchronized (this) {
            long now = System.nanoTime();
            available = Math.min(bytesPerSecond, available + (now - last) / 1e9 * bytesPerSecond);
            last = now;
            available -= bytes;  // may go negative: the debt is waited off here, by this caller
            waitNanos = available >= 0 ? 0 : (long) (-available / bytesPerSecond * 1e9);
        }
        if (waitNanos > 0) {
            Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
        }
    }
}
