package io.granary.gateway.write;

import io.granary.gateway.config.GatewayConfig;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Clears what the spool keeps past its use: bodies of requests that died mid-way, and the parts of multipart
 * uploads that were abandoned, or completed or aborted through another gateway replica. Anything untouched for
 * {@code granary.gateway.spool-max-age} goes; S3 itself forgets nothing by time, so the age is generous.
 */
@ApplicationScoped
public class SpoolSweeper {

    private static final Logger LOG = Logger.getLogger(SpoolSweeper.class);

    private final Path spool;
    private final Duration maxAge;

    SpoolSweeper(GatewayConfig config) {
        this.spool = config.spoolDir().toAbsolutePath();
        this.maxAge = config.spoolMaxAge();
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        long every = Math.max(60_000, maxAge.toMillis() / 24);
        vertx.setPeriodic(0, every, id -> vertx.executeBlocking(() -> {
            int removed = sweep(spool, Instant.now().minus(maxAge));
            if (removed > 0) {
                LOG.infof("spool: removed %d bodies and uploads untouched for %s", removed, maxAge);
            }
            return null;
        }, false).onFailure(e -> LOG.warnf("spool %s not swept: %s", spool, e.toString())));
    }

    /** Removes every spooled body and every upload's parts not touched since {@code before}; returns how many. */
    static int sweep(Path spool, Instant before) throws IOException {
        if (!Files.isDirectory(spool)) {
            return 0;
        }
        int removed = 0;
        try (Stream<Path> entries = Files.list(spool)) {
            for (Path entry : entries.toList()) {
                if (entry.getFileName().toString().equals("uploads")) {
                    continue;
                }
                try {
                    if (Files.isRegularFile(entry) && older(entry, before)) {
                        Files.deleteIfExists(entry);
                        removed++;
                    }
                } catch (NoSuchFileException gone) {
                    // finished by its request meanwhile
                }
            }
        }
        Path uploads = spool.resolve("uploads");
        if (Files.isDirectory(uploads)) {
            try (Stream<Path> dirs = Files.list(uploads)) {
                for (Path upload : dirs.toList()) {
                    try {
                        if (lastTouched(upload).isBefore(before)) {
                            deleteTree(upload);
                            removed++;
                        }
                    } catch (NoSuchFileException | UncheckedIOException gone) {
                        // completed or aborted meanwhile
                    }
                }
            }
        }
        return removed;
    }

    private static boolean older(Path file, Instant before) throws IOException {
        return Files.getLastModifiedTime(file).toInstant().isBefore(before);
    }

    /** The newest of an upload's parts: a part taken an hour ago keeps the whole upload. */
    private static Instant lastTouched(Path upload) throws IOException {
        try (Stream<Path> files = Files.walk(upload)) {
            return files.filter(Files::isRegularFile).map(SpoolSweeper::modified).max(Comparator.naturalOrder())
                    .orElseGet(() -> modified(upload));
        }
    }

    private static Instant modified(Path path) {
        try {
            return Files.getLastModifiedTime(path).toInstant();
        } catch (IOException e) {
            return Instant.EPOCH;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(BodySpool::deleteQuietly);
        }
    }
}
