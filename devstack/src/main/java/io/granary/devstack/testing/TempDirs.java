package io.granary.devstack.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directories a test made, or a service under test did. */
public final class TempDirs {

    private TempDirs() {
    }

    /** Deletes the directory and all in it; what cannot be deleted is left (a leftover under target/ is harmless). */
    public static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException ignored) {
            // a leftover temp dir under target/ is harmless
        }
    }
}
