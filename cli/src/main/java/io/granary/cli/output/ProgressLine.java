package io.granary.cli.output;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;

import java.io.PrintWriter;

/**
 * A DataLoad's progress as it comes: on a terminal one bar redrawn in place; anywhere else (a log, a pipe) a line
 * each time the phase, the whole percentage or the files done move, so a log stays readable.
 */
public final class ProgressLine {

    private static final int BAR = 20;

    private final PrintWriter out;
    private final boolean terminal;
    private String lastShown;

    public ProgressLine(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    public void show(DataLoadStatus status) {
        if (terminal) {
            String line = line(status);
            out.print("\r" + (line.length() >= Table.WIDTH ? line.substring(0, Table.WIDTH - 1) : line)
                    + "\033[K");
            out.flush();
            return;
        }
        String moved = status.phase() + " " + (int) percent(status) + " " + status.filesDone();
        if (!moved.equals(lastShown)) {
            lastShown = moved;
            out.println(line(status));
            out.flush();
        }
    }

    /** Ends the bar's line on a terminal, so what follows starts on its own. */
    public void end() {
        if (terminal) {
            out.println();
            out.flush();
        }
    }

    /** Bytes done of the total, or files when the load has no bytes (metadata only, empty files). */
    public static double percent(DataLoadStatus status) {
        if (status.phase() == DataLoadPhase.COMPLETE) {
            return 100;
        }
        if (status.bytesTotal() > 0) {
            return Math.min(100, 100.0 * status.bytesDone() / status.bytesTotal());
        }
        return status.filesTotal() > 0 ? Math.min(100, 100.0 * status.filesDone() / status.filesTotal()) : 0;
    }

    static String line(DataLoadStatus status) {
        double percent = percent(status);
        int filled = (int) Math.round(BAR * percent / 100);
        StringBuilder line = new StringBuilder("[").append("#".repeat(filled)).append("-".repeat(BAR - filled))
                .append("] ").append(String.format("%3d%%", (int) percent));
        if (status.filesTotal() == 0 && !status.phase().ended()) {
            return line.append("  ").append(Units.phase(status.phase())).append(": counting files").toString();
        }
        line.append("  ").append(status.filesDone()).append('/').append(status.filesTotal()).append(" files  ")
                .append(Units.bytes(status.bytesDone())).append('/').append(Units.bytes(status.bytesTotal()));
        if (status.phase() == DataLoadPhase.LOADING) {
            line.append("  ").append(Units.rate(status.bytesPerSecond()));
            if (status.etaSeconds() != null) {
                line.append("  ETA ").append(Units.duration(status.etaSeconds()));
            }
        } else {
            line.append("  ").append(Units.phase(status.phase()));
        }
        return line.toString();
    }

    /** Files done of the total; a dash while they are being counted. */
    public static String files(DataLoadStatus status) {
        return status.filesTotal() == 0 && !status.phase().ended() ? "-"
                : status.filesDone() + "/" + status.filesTotal();
    }
}
