package io.granary.kit.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HedgeDelayTest {

    private static final long MS = 1_000_000;

    @Test
    void beforeAnyAnswerWasTimedTheMostIsWaited() {
        HedgeDelay hedge = new HedgeDelay(Duration.ofMillis(100), Duration.ofSeconds(2));
        for (int i = 0; i < 15; i++) {
            hedge.firstByte(MS);
        }
        assertThat(hedge.delay()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void fourTimesTheRecent99thPercentile() {
        HedgeDelay hedge = new HedgeDelay(Duration.ofMillis(100), Duration.ofSeconds(2));
        // 256 answers: 252 took 10 ms, 4 took 90 ms; the 99th percentile (the 254th of 256) is 90 ms.
        for (int i = 0; i < HedgeDelay.SAMPLES; i++) {
            hedge.firstByte(i % 80 == 0 ? 90 * MS : 10 * MS);
        }
        assertThat(hedge.delay()).isEqualTo(Duration.ofMillis(360));
    }

    @Test
    void onlyTheRecentAnswersCount() {
        HedgeDelay hedge = new HedgeDelay(Duration.ofMillis(100), Duration.ofSeconds(2));
        for (int i = 0; i < HedgeDelay.SAMPLES; i++) {
            hedge.firstByte(400 * MS);
        }
        assertThat(hedge.delay()).isEqualTo(Duration.ofSeconds(1).plusMillis(600));
        for (int i = 0; i < HedgeDelay.SAMPLES; i++) {
            hedge.firstByte(50 * MS);
        }
        assertThat(hedge.delay()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void keptWithinItsBounds() {
        HedgeDelay quick = new HedgeDelay(Duration.ofMillis(500), Duration.ofSeconds(2));
        HedgeDelay slow = new HedgeDelay(Duration.ofMillis(500), Duration.ofSeconds(2));
        for (int i = 0; i < HedgeDelay.SAMPLES; i++) {
            quick.firstByte(MS);
            slow.firstByte(5_000 * MS);
        }
        assertThat(quick.delay()).isEqualTo(Duration.ofMillis(500));
        assertThat(slow.delay()).isEqualTo(Duration.ofSeconds(2));
        assertThat(quick.millis()).isEqualTo(500);
    }

    @Test
    void boundsThatCannotHoldAreRefused() {
        assertThatThrownBy(() -> new HedgeDelay(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("min <= max");
    }
}
