package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.Tier;
import io.granary.contracts.worker.Worker;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lookup of a block's file in a worker's level directories, on real directories laid out as the block-service
 * writes them: {@code <level dir>/<dataset>/<blockId>}, a block first written to {@code .<blockId>.<uuid>.tmp}
 * beside it, and its metadata in {@code <blockId>.meta}; an installed block file's modification time is
 * {@link BlockApi#SEALED}.
 */
class ShortCircuitTest {

    private static final String DATASET = "imagenet";
    private static final String BLOCK = BlockId.of(DATASET, "train/n01440764/0001.JPEG", "e1", 3).toString();

    @TempDir
    Path root;
    private Path mem;
    private Path ssd;
    private List<Tier> tiers;

    @BeforeEach
    void levels() throws IOException {
        mem = Files.createDirectories(root.resolve("mem"));
        ssd = Files.createDirectories(root.resolve("ssd/cache"));
        tiers = List.of(new Tier(Medium.MEM, mem.toString(), 1 << 30, 0),
                new Tier(Medium.SSD, ssd.toString(), 1L << 40, 0));
    }

    private static Path block(Path level, String dataset, String name) throws IOException {
        Path file = Files.createDirectories(level.resolve(dataset)).resolve(name);
        Files.write(file, new byte[] {1, 2, 3});
        return Files.setLastModifiedTime(file, BlockApi.SEALED);
    }

    @Test
    void aBlockFileWrittenToSinceItWasInstalledIsLeftToItsWorker() throws IOException {
        Path file = block(ssd, DATASET, BLOCK);
        try (Opened opened = new Opened()) {
            opened.shortCircuit.open(opened.owner, DATASET, BLOCK).orElseThrow().release();  // kept open

            // Damage in place: same inode, bytes changed, and with them the modification time.
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[] {9}), 1);
            }

            assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).isEmpty();
            assertThat(opened.shortCircuit.holds(opened.owner, DATASET, BLOCK)).isFalse();
            assertThat(opened.shortCircuit.open(opened.owner, DATASET, BLOCK)).as("not sent, even kept open").isEmpty();
        }
    }

    @Test
    void findsTheBlockFileInTheLevelThatHoldsIt() throws IOException {
        Path file = block(ssd, DATASET, BLOCK);

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).contains(file);
    }

    @Test
    void theFasterLevelIsReadWhenTwoHoldTheBlock() throws IOException {
        // A move between levels that a crash interrupted leaves a copy in each.
        Path inMemory = block(mem, DATASET, BLOCK);
        block(ssd, DATASET, BLOCK);

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).contains(inMemory);
    }

    @Test
    void aBlockNotHeldIsNotFound() throws IOException {
        block(ssd, DATASET, BlockId.of(DATASET, "train/n01440764/0001.JPEG", "e1", 4).toString());

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).isEmpty();
        assertThat(ShortCircuit.inLevels(List.of(), DATASET, BLOCK)).as("a worker with no levels").isEmpty();
    }

    @Test
    void aBlockBeingWrittenIsNotFound() throws IOException {
        block(ssd, DATASET, "." + BLOCK + ".5f0c6d2e-3b8a-4e43-9d55-0b0f0b9a1c2d.tmp");
        block(ssd, DATASET, BLOCK + ".meta");

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).isEmpty();
    }

    @Test
    void theBlockOfAnotherDatasetIsNotFound() throws IOException {
        block(ssd, "coco", BLOCK);

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).isEmpty();
    }

    @Test
    void onlyARegularFileIsABlock() throws IOException {
        Files.createDirectories(mem.resolve(DATASET).resolve(BLOCK));
        Path file = block(ssd, DATASET, BLOCK);

        assertThat(ShortCircuit.inLevels(tiers, DATASET, BLOCK)).contains(file);
    }

    @Test
    void aLevelDirectoryThatIsNotThereIsPassedOver() throws IOException {
        Path file = block(ssd, DATASET, BLOCK);
        List<Tier> withMissing = List.of(new Tier(Medium.MEM, root.resolve("not-mounted-here").toString(), 1, 0),
                tiers.get(1));

        assertThat(ShortCircuit.inLevels(withMissing, DATASET, BLOCK)).contains(file);
    }

    @Test
    void aFileInMemoryIsMappedAndOneOnDiskIsNot() throws IOException {
        block(ssd, DATASET, BLOCK);
        String other = BlockId.of(DATASET, "train/n01440764/0002.JPEG", "e1", 0).toString();
        block(mem, DATASET, other);
        try (Opened opened = new Opened()) {
            OpenBlockFile onDisk = opened.shortCircuit.open(opened.owner, DATASET, BLOCK).orElseThrow();
            OpenBlockFile inMemory = opened.shortCircuit.open(opened.owner, DATASET, other).orElseThrow();

            assertThat(onDisk.isMapped()).isFalse();
            assertThat(inMemory.isMapped()).isTrue();
            onDisk.release();
            inMemory.release();
        }
    }

    @Test
    void aBlockMovedToAnotherLevelIsFoundWhereItIsNow() throws IOException {
        Path onDisk = block(ssd, DATASET, BLOCK);
        try (Opened opened = new Opened()) {
            opened.shortCircuit.open(opened.owner, DATASET, BLOCK).orElseThrow().release();  // kept open from disk

            // The worker promotes it: written in memory, then removed from disk.
            block(mem, DATASET, BLOCK);
            Files.delete(onDisk);
            OpenBlockFile now = opened.shortCircuit.open(opened.owner, DATASET, BLOCK).orElseThrow();

            assertThat(now.isMapped()).as("read from memory now").isTrue();
            now.release();
            Files.delete(mem.resolve(DATASET).resolve(BLOCK));  // evicted
            assertThat(opened.shortCircuit.open(opened.owner, DATASET, BLOCK)).isEmpty();
        }
    }

    /** A short-circuit on this node over the levels of a worker on it. */
    private final class Opened implements AutoCloseable {

        final OpenBlockFiles files = new OpenBlockFiles(16, 1);
        final ShortCircuit shortCircuit = new ShortCircuit(true, "node-1", files);
        final Worker owner = new Worker("worker-1", "node-1", "http://127.0.0.1:1", Map.of(), tiers, Instant.now(),
                true, null, 0, 0, 0, null);

        @Override
        public void close() {
            files.close();
        }
    }
}
