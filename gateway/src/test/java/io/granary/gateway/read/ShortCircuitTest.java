package io.granary.gateway.read;

import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import io.granary.kit.blockfile.BlockFileReader;
import io.granary.kit.blockfile.BlockFileWriter;
import io.granary.kit.blockfile.BlockFiles;
import io.granary.kit.blockfile.Sidecar;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway's switch over service-kit's block-file reader, on a block file installed as a worker installs it:
 * the files of a worker on this node are sent from here only while short-circuit reads are on. How files are found,
 * checked and kept open is service-kit's {@code BlockFilesTest}.
 */
class ShortCircuitTest {

    private static final String DATASET = "imagenet";
    private static final String BLOCK = "block-0";

    @TempDir
    Path level;
    private Worker here;
    private Worker elsewhere;

    @BeforeEach
    void installed() throws IOException {
        Path temp = BlockFileWriter.createTemp(level.toString(), DATASET, BLOCK);
        Files.write(temp, new byte[] {1, 2, 3});
        BlockFileWriter.install(temp, BlockFiles.blockFile(level.toString(), DATASET, BLOCK),
                new Sidecar(1, 3, "train/a.jpg", "e1"));
        List<WorkerLevel> levels = List.of(new WorkerLevel(Medium.SSD, level.toString(), 1L << 40, 3));
        here = new Worker("worker-1", "node-1", "http://127.0.0.1:1", Map.of(), levels, Instant.now(), true, null, 0, 0,
                0, null);
        elsewhere = new Worker("worker-2", "node-2", "http://127.0.0.1:2", Map.of(), levels, Instant.now(), true, null,
                0, 0, 0, null);
    }

    @Test
    void theFilesOfAWorkerOnThisNodeAreSentFromHere() {
        ShortCircuit shortCircuit = new ShortCircuit(true, new BlockFileReader("node-1", 16, 1));
        try {
            assertThat(shortCircuit.reaches(here)).isTrue();
            assertThat(shortCircuit.holds(here, DATASET, BLOCK)).isTrue();
            shortCircuit.open(here, DATASET, BLOCK).orElseThrow().release();

            assertThat(shortCircuit.reaches(elsewhere)).isFalse();
            assertThat(shortCircuit.holds(elsewhere, DATASET, BLOCK)).isFalse();
            assertThat(shortCircuit.open(elsewhere, DATASET, BLOCK)).isEmpty();
        } finally {
            shortCircuit.close();
        }
    }

    @Test
    void turnedOffNoFileIsSentFromHere() {
        ShortCircuit shortCircuit = new ShortCircuit(false, new BlockFileReader("node-1", 16, 1));
        try {
            assertThat(shortCircuit.reaches(here)).isFalse();
            assertThat(shortCircuit.holds(here, DATASET, BLOCK)).isFalse();
            assertThat(shortCircuit.open(here, DATASET, BLOCK)).isEmpty();
        } finally {
            shortCircuit.close();
        }
    }
}
