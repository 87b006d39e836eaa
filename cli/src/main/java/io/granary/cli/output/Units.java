package io.granary.cli.output;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/** Sizes, rates, percentages and times as a person reads them. */
public final class Units {

    private static final String[] BINARY = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};

    private Units() {
    }

    public static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < BINARY.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, BINARY[unit]);
    }

    public static String rate(double bytesPerSecond) {
        return bytes(Math.round(bytesPerSecond)) + "/s";
    }

    /** A percentage of 0-100, whole. */
    public static String percent(double percentage) {
        return Math.round(Math.floor(percentage)) + "%";
    }

    /** A ratio of 0-1 as a percentage to a tenth, rounded down as every percentage is; a dash when there is none. */
    public static String ratio(Double ratio) {
        return ratio == null ? "-" : String.format(Locale.ROOT, "%.1f%%", Math.floor(ratio * 1000) / 10);
    }

    public static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return seconds / 60 + "m" + (seconds % 60 == 0 ? "" : seconds % 60 + "s");
        }
        return seconds / 3600 + "h" + (seconds % 3600 / 60 == 0 ? "" : seconds % 3600 / 60 + "m");
    }

    /** How long since, in the largest unit: "3m". */
    public static String age(Instant since, Instant now) {
        if (since == null) {
            return "-";
        }
        long seconds = Math.max(0, Duration.between(since, now).toSeconds());
        return seconds < 60 ? seconds + "s" : seconds < 3600 ? seconds / 60 + "m"
                : seconds < 86400 ? seconds / 3600 + "h" : seconds / 86400 + "d";
    }

    /** A phase as the API names it: {@code Bound}, {@code Loading}. */
    public static String phase(Enum<?> phase) {
        String name = phase.name();
        return name.charAt(0) + name.substring(1).toLowerCase(Locale.ROOT);
    }

    /** A time to the second, UTC. */
    public static String time(Instant when) {
        return when == null ? "-" : when.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }
}
