package io.granary.cli.output;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressLineTest {

    private static final Instant AT = Instant.parse("2026-11-25T10:00:00Z");

    @Test
    void offATerminalEachMoveIsALineAndRepeatsAreNot() {
        StringWriter out = new StringWriter();
        ProgressLine progress = new ProgressLine(new PrintWriter(out), false);

        progress.show(DataLoadStatus.pending("load-1", "photos", AT));
        progress.show(status(DataLoadPhase.LOADING, 1, 1024, 3.0));
        progress.show(status(DataLoadPhase.LOADING, 1, 1024, 5.0));  // only the rate moved
        progress.show(status(DataLoadPhase.LOADING, 2, 2048, 5.0));
        progress.show(status(DataLoadPhase.COMPLETE, 4, 4096, 0));
        progress.end();

        assertThat(out.toString().lines()).containsExactly(
                "[--------------------]   0%  Pending: counting files",
                "[#####---------------]  25%  1/4 files  1.0 KiB/4.0 KiB  3 B/s  ETA 10s",
                "[##########----------]  50%  2/4 files  2.0 KiB/4.0 KiB  5 B/s  ETA 10s",
                "[####################] 100%  4/4 files  4.0 KiB/4.0 KiB  Complete");
        assertThat(out.toString()).doesNotContain("\r");
    }

    @Test
    void onATerminalOneBarIsRedrawnInPlace() {
        StringWriter out = new StringWriter();
        ProgressLine progress = new ProgressLine(new PrintWriter(out), true);

        progress.show(status(DataLoadPhase.LOADING, 1, 1024, 3.0));
        progress.show(status(DataLoadPhase.COMPLETE, 4, 4096, 0));
        progress.end();

        assertThat(out.toString()).startsWith("\r[#####").contains("\r[####################] 100%").endsWith("\n");
        assertThat(out.toString().chars().filter(c -> c == '\n')).as("one line, ended once").hasSize(1);
    }

    @Test
    void aLoadWithNoBytesCountsFilesAndACompleteOneIsWhole() {
        DataLoadStatus metadataOnly = new DataLoadStatus("l", "d", DataLoadPhase.LOADING, 3, 4, 0, 0, 0, null, AT,
                null, List.of(), AT);
        assertThat(ProgressLine.percent(metadataOnly)).isEqualTo(75.0);
        assertThat(ProgressLine.percent(metadataOnly.ended(DataLoadPhase.COMPLETE, AT))).isEqualTo(100.0);
    }

    private static DataLoadStatus status(DataLoadPhase phase, long files, long bytes, double rate) {
        return new DataLoadStatus("load-1", "photos", phase, files, 4, bytes, 4096, rate, 10L, AT, null, List.of(), AT);
    }
}
