package io.granary.preload.service;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The token bucket over bytes, on a clock the test moves: nothing here really waits. */
class ThrottleTest {

    private static final long SECOND = 1_000_000_000L;

    /** A nanoTime that only moves when told, and a sleep that records the wait (and may let that time pass). */
    private static final class Time {
        long now = 123_456_789L;  // nanoTime has an arbitrary origin
        boolean sleepPassesTime = true;
        final List<Long> sleeps = new ArrayList<>();

        Throttle throttle(long bytesPerSecond) {
            return new Throttle(bytesPerSecond, () -> now, nanos -> {
                sleeps.add(nanos);
                if (sleepPassesTime) {
                    now += nanos;
                }
            });
        }

        long slept() {
            return sleeps.stream().mapToLong(Long::longValue).sum();
        }
    }

    private final Time time = new Time();

    @Test
    void noLimitNeverWaits() throws InterruptedException {
        for (long limit : new long[] {0, -1}) {
            Throttle unlimited = time.throttle(limit);
            for (int i = 0; i < 100; i++) {
                unlimited.acquire(Long.MAX_VALUE / 200);
            }
        }
        assertThat(time.sleeps).isEmpty();
    }

    @Test
    void aFreshBucketHoldsOneSecondOfBurst() throws InterruptedException {
        Throttle throttle = time.throttle(1000);

        throttle.acquire(600);
        throttle.acquire(400);
        assertThat(time.sleeps).as("one second's bytes go at once").isEmpty();

        throttle.acquire(500);
        assertThat(time.sleeps).containsExactly(SECOND / 2);
    }

    @Test
    void theBucketRefillsAtTheRate() throws InterruptedException {
        Throttle throttle = time.throttle(1000);
        throttle.acquire(1000);

        time.now += SECOND / 4;
        throttle.acquire(250);
        assertThat(time.sleeps).as("a quarter second refilled 250 bytes").isEmpty();

        time.now += SECOND / 4;
        throttle.acquire(300);
        assertThat(time.sleeps).as("50 bytes short: 50 ms").containsExactly(SECOND / 20);
    }

    @Test
    void anIdleBucketHoldsNoMoreThanOneSecond() throws InterruptedException {
        Throttle throttle = time.throttle(1000);
        time.now += 60 * SECOND;

        throttle.acquire(3000);

        assertThat(time.sleeps).as("a minute idle saves one second, not sixty").containsExactly(2 * SECOND);
    }

    @Test
    void aTakeLargerThanTheBucketGoesAfterWaitingItsDebt() throws InterruptedException {
        Throttle throttle = time.throttle(1000);

        throttle.acquire(5000);

        assertThat(time.sleeps).containsExactly(4 * SECOND);
    }

    @Test
    void takersAtTheSameMomentQueueBehindEachOthersDebt() throws InterruptedException {
        // Three batch threads take at once: each waits for all that was taken before it.
        time.sleepPassesTime = false;
        Throttle throttle = time.throttle(1000);

        throttle.acquire(1000);
        throttle.acquire(500);
        throttle.acquire(500);

        assertThat(time.sleeps).containsExactly(SECOND / 2, SECOND);
    }

    @Test
    void aLongRunGoesAtTheRateAfterItsBurst() throws InterruptedException {
        long rate = 64L << 20;
        Throttle throttle = time.throttle(rate);
        long taken = 0;
        for (int i = 0; i < 1000; i++) {
            long bytes = (4L << 20) + i * 1021L;  // 4 MiB batches, not all the same
            throttle.acquire(bytes);
            taken += bytes;
        }

        double expected = (double) (taken - rate) / rate * SECOND;
        assertThat((double) time.slept()).as("nanoseconds slept").isCloseTo(expected, within(1000.0));
    }

    @Test
    void anInterruptedWaitIsPassedOn() {
        Throttle throttle = new Throttle(1000, () -> time.now, nanos -> {
            throw new InterruptedException("stopping");
        });

        assertThatThrownBy(() -> throttle.acquire(2000)).isInstanceOf(InterruptedException.class);
    }
}
