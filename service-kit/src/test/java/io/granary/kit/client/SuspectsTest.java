package io.granary.kit.client;

import io.granary.contracts.worker.Worker;
import io.granary.kit.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class SuspectsTest {

    private static final Instant NOW = Instant.parse("2026-11-27T13:00:00Z");
    private final Suspects suspects = new Suspects(Duration.ofSeconds(10), Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void aSilentWorkerHeardFromAfterItsSilenceBeganIsTrustedAgain() {
        suspects.suspect(worker("w1", NOW.minusSeconds(3)), new CompletionException(new TimeoutException("silent")));
        assertThat(suspects.trusted(List.of(worker("w1", NOW)))).isEmpty();

        suspects.heardFrom(List.of(worker("w1", NOW.minusSeconds(1))));
        assertThat(suspects.trusted(List.of(worker("w1", NOW)))).as("its last heartbeat is older").isEmpty();

        suspects.heardFrom(List.of(worker("w1", NOW.plusMillis(1))));
        assertThat(suspects.trusted(List.of(worker("w1", NOW)))).hasSize(1);
    }

    @Test
    void aWorkerThatRefusedConnectionsIsTrustedAgainOnceItsRestartIsHeard() {
        suspects.suspect(worker("w5", NOW), new CompletionException(new ConnectException("Connection refused")));
        assertThat(suspects.trusted(List.of(worker("w5", NOW)))).isEmpty();

        suspects.heardFrom(List.of(worker("w5", NOW.plusSeconds(2))));
        assertThat(suspects.trusted(List.of(worker("w5", NOW)))).hasSize(1);
    }

    @Test
    void aSilentWorkerThatAnswersItsCheckIsTrustedAgainAndOneThatFailedItsAnswerIsNot() {
        Worker w6 = worker("w6", NOW);
        Worker w7 = worker("w7", NOW);
        suspects.suspect(w6, new TimeoutException("silent"));
        suspects.suspect(w7, new WorkerCallFailed(w7, 500, null));
        assertThat(suspects.silent()).as("checked again until they answer").containsExactly(w6);

        suspects.checked(w6, false, null);
        assertThat(suspects.trusted(List.of(w6, w7))).as("no answer yet").isEmpty();
        suspects.checked(w6, true, null);
        suspects.checked(w7, true, null);
        assertThat(suspects.trusted(List.of(w6, w7))).containsExactly(w6);
    }

    @Test
    void aSilentWorkerStaysSuspectedWhileItFailsItsChecksButNotForever() {
        ManualClock clock = new ManualClock(NOW);
        Suspects watched = new Suspects(Duration.ofSeconds(10), clock);
        Worker cut = worker("w8", NOW);
        watched.suspect(cut, new TimeoutException("silent"));
        for (int second = 1; second <= 30; second++) {  // checked every second, no answer
            clock.advance(Duration.ofSeconds(1));
            watched.checked(cut, false, null);
            assertThat(watched.trusted(List.of(cut))).as("%d s into its silence", second).isEmpty();
        }
        watched.checked(cut, true, null);
        assertThat(watched.trusted(List.of(cut))).as("answered: trusted again").containsExactly(cut);

        watched.suspect(cut, new TimeoutException("silent"));
        clock.advance(Duration.ofMinutes(10));
        watched.checked(cut, false, null);
        clock.advance(Duration.ofSeconds(11));
        assertThat(watched.trusted(List.of(cut))).as("silent for ten minutes: its suspicion runs out")
                .containsExactly(cut);
    }

    @Test
    void aWorkerThatAnsweredBadlyStaysSuspectedWhateverItsHeartbeats() {
        suspects.suspect(worker("w2", NOW), new WorkerCallFailed(worker("w2", NOW), 500, null));
        suspects.heardFrom(List.of(worker("w2", NOW.plusSeconds(1))));
        assertThat(suspects.trusted(List.of(worker("w2", NOW)))).isEmpty();
    }

    @Test
    void aDoubtedWorkerIsPassedOverUntilItsCheckAnswers() {
        Worker w3 = worker("w3", NOW);
        Worker w4 = worker("w4", NOW);
        assertThat(suspects.doubt(w3)).isTrue();
        assertThat(suspects.doubt(w3)).as("one check at a time").isFalse();
        assertThat(suspects.trusted(List.of(w3, w4))).as("every read here passes it over meanwhile").containsExactly(w4);

        suspects.checked(w3, true, new TimeoutException("silent"));
        assertThat(suspects.trusted(List.of(w3, w4))).as("alive: trusted again").containsExactly(w3, w4);

        suspects.doubt(w3);
        suspects.checked(w3, false, new TimeoutException("silent"));
        assertThat(suspects.doubted(w3)).isFalse();
        assertThat(suspects.trusted(List.of(w3, w4))).as("no answer: suspected").containsExactly(w4);
    }

    private static Worker worker(String id, Instant lastHeartbeat) {
        return new Worker(id, "node-a", "http://127.0.0.1:1", Map.of(), List.of(), lastHeartbeat, true, null, 0, 0, 0,
                null);
    }
}
