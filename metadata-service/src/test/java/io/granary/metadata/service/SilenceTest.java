package io.granary.metadata.service;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class SilenceTest {

    private static final Instant T0 = Instant.parse("2026-11-27T12:00:00Z");
    private static final Duration DEAD_AFTER = Duration.ofSeconds(3);
    private static final Duration QUIET_LIMIT = Duration.ofSeconds(60);

    @Test
    void aCoordinatorThatHeardNothingFor30SecondsKeepsEveryWorker() {
        // Three workers beat every second until T0; then the heartbeats' consumer group rebalances for 30 s.
        Silence sweep = new Silence(T0, T0.plusSeconds(30), QUIET_LIMIT);
        assertThat(sweep.gone(T0, DEAD_AFTER)).isFalse();
        assertThat(sweep.gone(T0.minusMillis(900), DEAD_AFTER)).isFalse();
    }

    @Test
    void aWorkerIsGoneOnceOthersWereHeardPastItsDeadline() {
        Instant last = T0;
        assertThat(new Silence(T0.plusSeconds(3), T0.plusSeconds(4), QUIET_LIMIT).gone(last, DEAD_AFTER))
                .as("others heard, but not yet past its deadline").isFalse();
        assertThat(new Silence(T0.plusSeconds(4), T0.plusSeconds(4), QUIET_LIMIT).gone(last, DEAD_AFTER)).isTrue();
    }

    @Test
    void afterARebalanceOnlyTheWorkerThatStayedSilentGoes() {
        // Nothing heard from T0 to T0+30 s; then the others beat again, the dead one does not.
        Instant resumed = T0.plusSeconds(30);
        Silence justAfter = new Silence(resumed, resumed.plusMillis(500), QUIET_LIMIT);
        assertThat(justAfter.gone(resumed, DEAD_AFTER)).as("a worker heard again").isFalse();
        assertThat(justAfter.gone(T0, DEAD_AFTER)).as("the one that stayed silent").isTrue();
    }

    @Test
    void whenNobodyIsHeardForLongerThanTheQuietLimitTimeCountsAgain() {
        // A lone worker, or every worker, dead: nobody can be heard instead.
        assertThat(new Silence(T0, T0.plusSeconds(59), QUIET_LIMIT).gone(T0, DEAD_AFTER)).isFalse();
        assertThat(new Silence(T0, T0.plusSeconds(61), QUIET_LIMIT).gone(T0, DEAD_AFTER)).isTrue();
    }

    @Test
    void aWorkerWithinItsOwnPeriodIsNeverGone() {
        assertThat(new Silence(T0.plusSeconds(100), T0.plusSeconds(100), QUIET_LIMIT)
                .gone(T0.plusSeconds(98), DEAD_AFTER)).isFalse();
    }
}
