package io.granary.block.store;

import io.granary.contracts.worker.Medium;

import java.nio.file.Path;
import java.util.List;

/**
 * One configured level, as Fluid's tieredstore: a medium, its directories, a quota split evenly over them, and the
 * watermarks between which eviction keeps it (passing {@code high} evicts down to {@code low}).
 */
public record LevelSpec(Medium medium, List<Path> paths, long quota, double high, double low) {

    public LevelSpec {
        paths = List.copyOf(paths);
        if (paths.isEmpty()) {
            throw new IllegalArgumentException(medium + " level needs at least one path");
        }
        if (quota <= 0) {
            throw new IllegalArgumentException(medium + " level quota must be positive");
        }
        if (!(low > 0 && low <= high && high <= 1)) {
            throw new IllegalArgumentException(medium + " level watermarks must satisfy 0 < low <= high <= 1, not low "
                    + low + ", high " + high);
        }
    }
}
