package io.granary.preload.service;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.FileError;
import io.granary.kit.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** A run's counts and the status they make, on a clock the test moves. */
class ProgressTest {

    private static final Instant START = Instant.parse("2025-03-14T10:00:00Z");

    private final ManualClock clock = new ManualClock(START);
    private final Progress progress = new Progress(clock, 3);

    private DataLoadStatus loading() {
        return progress.status("load-1", "imagenet", DataLoadPhase.LOADING);
    }

    @Test
    void aRunJustStartedHasNoRateAndNoEta() {
        DataLoadStatus status = loading();

        assertThat(status.id()).isEqualTo("load-1");
        assertThat(status.dataset()).isEqualTo("imagenet");
        assertThat(status.phase()).isEqualTo(DataLoadPhase.LOADING);
        assertThat(status.bytesPerSecond()).isZero();
        assertThat(status.etaSeconds()).as("unknown").isNull();
        assertThat(status.startedAt()).isEqualTo(START);
        assertThat(status.finishedAt()).isNull();
        assertThat(status.updatedAt()).isEqualTo(START);
        assertThat(status.errors()).isEmpty();
    }

    @Test
    void theStatusCarriesTheCounts() {
        progress.filesTotal.set(10);
        progress.bytesTotal.set(10_000);
        progress.filesDone.set(4);
        progress.bytesDone.set(4_000);

        DataLoadStatus status = loading();

        assertThat(status.filesTotal()).isEqualTo(10);
        assertThat(status.bytesTotal()).isEqualTo(10_000);
        assertThat(status.filesDone()).isEqualTo(4);
        assertThat(status.bytesDone()).isEqualTo(4_000);
    }

    @Test
    void theFirstRateIsMeasuredAsSoonAsTimeHasPassed() {
        progress.bytesTotal.set(1_000);
        loading();

        clock.advance(Duration.ofSeconds(1));
        progress.bytesDone.set(100);
        DataLoadStatus status = loading();

        assertThat(status.bytesPerSecond()).isEqualTo(100.0);
        assertThat(status.etaSeconds()).as("900 bytes left at 100 a second").isEqualTo(9L);
        assertThat(status.updatedAt()).isEqualTo(START.plusSeconds(1));
    }

    @Test
    void theRateIsOfTheLastThreeSecondsNotSinceTheStart() {
        progress.bytesTotal.set(100_000);
        clock.advance(Duration.ofSeconds(1));
        progress.bytesDone.set(100);
        assertThat(loading().bytesPerSecond()).isEqualTo(100.0);

        // Within the window the rate stands, whatever was done meanwhile.
        clock.advance(Duration.ofSeconds(1));
        progress.bytesDone.set(1_000);
        assertThat(loading().bytesPerSecond()).isEqualTo(100.0);

        // Three seconds after the last measure: 1,200 bytes in 3 s, not 1,300 in 4 s since the start.
        clock.advance(Duration.ofSeconds(2));
        progress.bytesDone.set(1_300);
        DataLoadStatus status = loading();
        assertThat(status.bytesPerSecond()).isEqualTo(400.0);
        assertThat(status.etaSeconds()).isEqualTo((100_000 - 1_300) / 400);
    }

    @Test
    void aStalledRunFallsToNoRateAndAnUnknownEta() {
        progress.bytesTotal.set(1_000);
        clock.advance(Duration.ofSeconds(1));
        progress.bytesDone.set(500);
        assertThat(loading().bytesPerSecond()).isEqualTo(500.0);

        clock.advance(Duration.ofSeconds(3));
        DataLoadStatus status = loading();

        assertThat(status.bytesPerSecond()).isZero();
        assertThat(status.etaSeconds()).isNull();
    }

    @Test
    void anEndedRunHasNoRateNoTimeLeftAndAnEnd() {
        progress.bytesTotal.set(1_000);
        clock.advance(Duration.ofSeconds(1));
        progress.bytesDone.set(500);
        assertThat(loading().bytesPerSecond()).isPositive();

        for (DataLoadPhase ended : new DataLoadPhase[] {DataLoadPhase.COMPLETE, DataLoadPhase.FAILED,
                DataLoadPhase.CANCELLED}) {
            clock.advance(Duration.ofMillis(10));
            DataLoadStatus status = progress.status("load-1", "imagenet", ended);

            assertThat(status.phase()).isEqualTo(ended);
            assertThat(status.bytesPerSecond()).as(ended + " rate").isZero();
            assertThat(status.etaSeconds()).as(ended + " eta").isZero();
            assertThat(status.finishedAt()).as(ended + " end").isEqualTo(clock.instant());
            assertThat(status.startedAt()).isEqualTo(START);
        }
    }

    @Test
    void failuresAreAllCountedButOnlyTheFirstKept() {
        for (int i = 1; i <= 5; i++) {
            progress.failed("file-" + i, "reason " + i);
        }

        assertThat(progress.failures()).isEqualTo(5);
        assertThat(loading().errors()).containsExactly(new FileError("file-1", "reason 1"),
                new FileError("file-2", "reason 2"), new FileError("file-3", "reason 3"));
    }

    @Test
    void aStatusKeepsTheErrorsOfItsMoment() {
        progress.failed("early", "first");
        DataLoadStatus before = loading();

        progress.failed("late", "second");

        assertThat(before.errors()).extracting(FileError::path).containsExactly("early");
        assertThat(loading().errors()).extracting(FileError::path).containsExactly("early", "late");
    }
}
