package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Block files kept open between reads, on real files laid out and replaced as the block-service does it (written
 * under a temporary name, then renamed), counting this process's real file descriptors and mappings. A test that
 * takes {@code inMemory} runs for a file on a disk level and for one in memory (kept mapped: every file in memory
 * is mapped here, whatever its size).
 */
class OpenBlockFilesTest {

    private static final String DATASET = "imagenet";

    @TempDir
    Path level;
    private OpenBlockFiles files;

    @AfterEach
    void close() {
        if (files != null) {
            files.close();
        }
    }

    private Path block(String path, String etag, byte[] content) throws IOException {
        Path file = BlockApi.blockFile(level.toString(), DATASET, BlockId.of(DATASET, path, etag, 0).toString());
        Files.createDirectories(file.getParent());
        Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.write(temporary, content);
        Files.setLastModifiedTime(temporary, BlockApi.SEALED);  // as the worker installs it
        return Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The file's bytes as a send takes them (from the mapping, or positional reads as sendfile does), released. */
    private static byte[] read(OpenBlockFile file) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) file.size());
        if (file.isMapped()) {
            buffer.put(file.mapped(0, file.size()));
        }
        while (buffer.hasRemaining() && file.channel().read(buffer, buffer.position()) > 0) {
            // the file is shared by every read of it: never its position
        }
        file.release();
        return buffer.array();
    }

    /** This process's mappings of block files of the level. */
    private long mappings() throws IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(line -> line.contains(level.toString())).count();
        }
    }

    /** This process's open file descriptors on block files of the level. */
    private long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).startsWith(level);
                } catch (IOException e) {
                    return false;  // the descriptor of the listing itself, closed meanwhile
                }
            }).count();
        }
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aWarmReadReusesTheOpenFile(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(8, 1);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});

        OpenBlockFile first = files.open(block, inMemory).orElseThrow();
        OpenBlockFile second = files.open(block, inMemory).orElseThrow();

        assertThat(second).isSameAs(first);
        assertThat(read(first)).containsExactly(1, 2, 3);
        assertThat(read(second)).containsExactly(1, 2, 3);
        assertThat(openDescriptors()).isEqualTo(1);
        assertThat(mappings()).as("mapped once, while kept").isEqualTo(inMemory ? 1 : 0);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void anEvictedBlockIsNotServedFromAnOpenFile(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(8, 1);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        read(files.open(block, inMemory).orElseThrow());

        Files.delete(block);  // the worker evicts it, or the dataset's cache is freed

        assertThat(files.open(block, inMemory)).isEmpty();
        assertThat(files.size()).isZero();
        assertThat(openDescriptors()).as("closed when found gone").isZero();
        assertThat(mappings()).as("and unmapped").isZero();
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void anEvictedBlockNotReadAgainIsClosedByTheCheck(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(8, 1);
        Path evicted = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        Path refilled = block("train/0002.JPEG", "e1", new byte[] {4});
        Path kept = block("train/0003.JPEG", "e1", new byte[] {5});
        read(files.open(evicted, inMemory).orElseThrow());
        read(files.open(refilled, inMemory).orElseThrow());
        read(files.open(kept, inMemory).orElseThrow());

        Files.delete(evicted);
        block("train/0002.JPEG", "e1", new byte[] {6});  // evicted and filled again: another file under the name
        files.closeStale();

        assertThat(files.size()).as("only the file still under its name").isEqualTo(1);
        assertThat(files.keeps(kept)).isTrue();
        assertThat(openDescriptors()).isEqualTo(1);
        assertThat(mappings()).isEqualTo(inMemory ? 1 : 0);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aBlockWrittenAnewUnderItsNameIsOpenedAfresh(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(8, 1);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        OpenBlockFile before = files.open(block, inMemory).orElseThrow();
        read(before);

        // Evicted and filled again while the file stayed open here: another inode under the same name.
        block("train/0001.JPEG", "e1", new byte[] {4, 5, 6, 7});
        OpenBlockFile after = files.open(block, inMemory).orElseThrow();

        assertThat(after).isNotSameAs(before);
        assertThat(before.channel().isOpen()).as("the old file closed once no read holds it").isFalse();
        assertThat(read(after)).containsExactly(4, 5, 6, 7);
        assertThat(mappings()).as("only the new file mapped").isEqualTo(inMemory ? 1 : 0);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aNewVersionOfAnObjectIsNeverServedFromTheOldVersionsFile(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(8, 1);
        Path old = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        read(files.open(old, inMemory).orElseThrow());

        Path replaced = BlockApi.blockFile(level.toString(), DATASET,
                BlockId.of(DATASET, "train/0001.JPEG", "e2", 0).toString());

        assertThat(replaced).as("a block is named by its object's etag").isNotEqualTo(old);
        assertThat(files.open(replaced, inMemory)).as("not cached yet: read another way").isEmpty();
        Path filled = block("train/0001.JPEG", "e2", new byte[] {9, 9});
        assertThat(read(files.open(filled, inMemory).orElseThrow())).containsExactly(9, 9);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aFileDroppedFromTheCacheWhileBeingSentStaysOpenUntilTheSendIsDone(boolean inMemory) throws IOException {
        files = new OpenBlockFiles(1, 1);
        OpenBlockFile sending = files.open(block("a", "e1", new byte[] {1}), inMemory).orElseThrow();

        read(files.open(block("b", "e1", new byte[] {2}), inMemory).orElseThrow());  // pushes "a" out of the cache

        assertThat(files.size()).isEqualTo(1);
        assertThat(sending.channel().isOpen()).isTrue();
        assertThat(mappings()).as("the one sent and the one kept").isEqualTo(inMemory ? 2 : 0);
        assertThat(read(sending)).containsExactly(1);
        assertThat(sending.channel().isOpen()).isFalse();
        assertThat(mappings()).isEqualTo(inMemory ? 1 : 0);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void theOpenFileLimitHoldsOverTenThousandDistinctFiles(boolean inMemory) throws IOException {
        int limit = 100;
        files = new OpenBlockFiles(limit, 1);
        long most = 0;
        long mostMapped = 0;
        for (int i = 0; i < 10_000; i++) {
            Path block = block("train/%05d.JPEG".formatted(i), "e1", new byte[] {(byte) i});
            assertThat(read(files.open(block, inMemory).orElseThrow())).containsExactly((byte) i);
            if (i % 250 == 0 || i >= 9_990) {
                most = Math.max(most, openDescriptors());
                mostMapped = Math.max(mostMapped, mappings());
            }
        }

        assertThat(files.size()).isEqualTo(limit);
        assertThat(most).isLessThanOrEqualTo(limit);
        assertThat(openDescriptors()).isEqualTo(limit);
        assertThat(mostMapped).as("mappings count against vm.max_map_count").isLessThanOrEqualTo(inMemory ? limit : 0);
        assertThat(mappings()).isEqualTo(inMemory ? limit : 0);
        files.close();
        assertThat(openDescriptors()).isZero();
        assertThat(mappings()).isZero();
    }

    @Test
    void onlyAFileInMemoryOfTheSizeToMapIsMapped() throws IOException {
        files = new OpenBlockFiles(8, 2048);
        OpenBlockFile small = files.open(block("small", "e1", new byte[2047]), true).orElseThrow();
        OpenBlockFile big = files.open(block("big", "e1", new byte[2048]), true).orElseThrow();
        OpenBlockFile onDisk = files.open(block("on-disk", "e1", new byte[4096]), false).orElseThrow();

        assertThat(small.isMapped()).isFalse();
        assertThat(big.isMapped()).isTrue();
        assertThat(onDisk.isMapped()).isFalse();
        assertThat(read(big)).hasSize(2048);
        small.release();
        onDisk.release();
        assertThat(mappings()).isEqualTo(1);
    }

    @Test
    void theLimitIsHalfWhatTheKernelAllowsThisProcess() throws IOException {
        long descriptors;
        try (Stream<String> limits = Files.lines(Path.of("/proc/self/limits"))) {
            descriptors = limits.filter(line -> line.startsWith("Max open files"))
                    .map(line -> Long.parseLong(line.split("\\s+")[3])).findFirst().orElseThrow();
        }
        long mappings;
        try (Stream<String> count = Files.lines(Path.of("/proc/sys/vm/max_map_count"))) {
            mappings = Long.parseLong(count.findFirst().orElseThrow().trim());
        }

        long half = Math.min(descriptors, mappings) / 2;
        assertThat(OpenBlockFiles.limit(1_000_000)).isEqualTo((int) Math.min(1_000_000, half));
        assertThat(OpenBlockFiles.limit(10)).isEqualTo((int) Math.min(10, half));
    }

    @Test
    void noLimitOpensAndClosesAFilePerRead() throws IOException {
        files = new OpenBlockFiles(0, 1);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1});

        OpenBlockFile file = files.open(block, true).orElseThrow();
        assertThat(file.isMapped()).as("a file opened for one read is sent, not mapped").isFalse();
        assertThat(read(file)).containsExactly(1);

        assertThat(files.size()).isZero();
        assertThat(openDescriptors()).isZero();
    }
}
