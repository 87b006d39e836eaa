package io.granary.gateway.write;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class SpoolSweeperTest {

    @TempDir
    Path spool;

    @Test
    void removesWhatWasLeftBehindAndKeepsWhatIsInUse() throws Exception {
        Instant now = Instant.now();
        Instant dayAgo = now.minus(Duration.ofHours(25));
        Path deadBody = touched(spool.resolve("body-1.part"), dayAgo);
        Path liveBody = touched(spool.resolve("body-2.part"), now);
        Path abandoned = Files.createDirectories(spool.resolve("uploads/aaaa"));
        touched(abandoned.resolve("1"), dayAgo);
        touched(abandoned.resolve("1.etag"), dayAgo);
        Path ongoing = Files.createDirectories(spool.resolve("uploads/bbbb"));
        touched(ongoing.resolve("1"), dayAgo);
        touched(ongoing.resolve("2"), now.minus(Duration.ofMinutes(5)));

        assertThat(SpoolSweeper.sweep(spool, now.minus(Duration.ofHours(24)))).isEqualTo(2);

        assertThat(deadBody).doesNotExist();
        assertThat(abandoned).doesNotExist();
        assertThat(liveBody).exists();
        assertThat(ongoing.resolve("1")).as("an upload with a recent part is kept whole").exists();
        assertThat(SpoolSweeper.sweep(spool.resolve("missing"), now)).isZero();
    }

    private static Path touched(Path file, Instant when) throws Exception {
        Files.writeString(file, "x");
        Files.setLastModifiedTime(file, FileTime.from(when));
        return file;
    }
}
