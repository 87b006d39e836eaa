package io.granary.devstack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK's class-data sharing (AppCDS) for a child JVM, as {@code ./granary} uses it (devstack/local.sh): the classes
 * a start loaded, kept parsed and verified in one archive, make the next start of the same jar cost about 30% less
 * CPU (a block-service: 3.8 s instead of 5.4 on two cores; a Kafka broker 6.0 instead of 7.2). Without an archive,
 * the child records one at its exit, and {@link #keep} puts it in place unless the child was killed, perhaps while
 * it wrote it. An archive the JDK refuses (its jar changed) only costs that start its speed-up.
 */
final class ClassDataSharing {

    private static final AtomicInteger RECORDINGS = new AtomicInteger();
    /** A JVM's exit status when SIGKILL ended it. */
    private static final int KILLED = 128 + 9;

    private final Path archive;
    /** Where the child records the archive, or null when it uses one (or neither). */
    private final Path recording;

    private ClassDataSharing(Path archive, Path recording) {
        this.archive = archive;
        this.recording = recording;
    }

    /**
     * For a packaged service: the archive beside its jar, named as local.sh names it, so tests and {@code ./granary}
     * share it; one older than the jar is recorded again.
     */
    static ClassDataSharing beside(Path jar) {
        Path archive = jar.resolveSibling("granary-" + jdk() + ".jsa");
        return newer(archive, jar) ? new ClassDataSharing(archive, null) : recordingOf(archive);
    }

    /** For a JVM on jars of the local Maven repository (Kafka, S3Proxy): an archive per name and class path. */
    static ClassDataSharing of(String name, String classpath) {
        Path archive = Path.of(System.getProperty("user.home"), ".cache", "granary", "cds",
                name + "-" + jdk() + "-" + Integer.toHexString(classpath.hashCode()) + ".jsa");
        return Files.isRegularFile(archive) ? new ClassDataSharing(archive, null) : recordingOf(archive);
    }

    /** None: a class path with a directory in it (a module's classes) cannot be archived. */
    static ClassDataSharing none() {
        return new ClassDataSharing(null, null);
    }

    private static ClassDataSharing recordingOf(Path archive) {
        try {
            Files.createDirectories(archive.getParent());
        } catch (IOException e) {
            return new ClassDataSharing(archive, null);  // nowhere to keep one: the child starts as it would without
        }
        return new ClassDataSharing(archive, archive.resolveSibling(archive.getFileName() + "."
                + ProcessHandle.current().pid() + "-" + RECORDINGS.incrementAndGet() + ".tmp"));
    }

    /** The child's JVM options. */
    List<String> options() {
        // A recording lists every class it could not keep, and a refused archive says so: neither is news.
        if (recording != null) {
            return List.of("-XX:ArchiveClassesAtExit=" + recording, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
        }
        return archive != null && Files.isRegularFile(archive)
                ? List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off")
                : List.of();
    }

    /** True while the child records an archive: only a graceful exit writes it. */
    boolean recording() {
        return recording != null;
    }

    /** After the child exited with {@code status}: its recording becomes the archive, unless SIGKILL ended it. */
    void keep(int status) {
        if (recording == null) {
            return;
        }
        try {
            if (status != KILLED && Files.isRegularFile(recording) && Files.size(recording) > 0) {
                Files.move(recording, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } else {
                Files.deleteIfExists(recording);
            }
        } catch (IOException e) {
            // no archive this time: the next start records one
        }
    }

    /** The JDK, as local.sh names it: its java binary's change time and size (an upgrade changes both). */
    private static String jdk() {
        try {
            Path java = Path.of(System.getProperty("java.home"), "bin", "java").toRealPath();
            FileTime changed = (FileTime) Files.getAttribute(java, "unix:ctime");
            return changed.to(TimeUnit.SECONDS) + "-" + Files.size(java);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "jdk-" + Runtime.version();
        }
    }

    private static boolean newer(Path file, Path than) {
        try {
            return Files.isRegularFile(file)
                    && Files.getLastModifiedTime(file).compareTo(Files.getLastModifiedTime(than)) > 0;
        } catch (IOException e) {
            return false;
        }
    }
}
