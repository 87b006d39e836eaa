package io.granary.kit.blockfile;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The block-file format, both sides on real files: block files written as a worker writes them
 * ({@link BlockFileWriter}), found, checked and kept open as the gateway and the FUSE client read them
 * ({@link BlockFileReader}), counting this process's real file descriptors and mappings. A test that takes
 * {@code inMemory} runs for a file of a disk level and for one of a memory level (kept mapped: every file in memory
 * is mapped here, whatever its size).
 */
class BlockFilesTest {

    private static final String DATASET = "imagenet";
    private static final String BLOCK = BlockId.of(DATASET, "train/n01440764/0001.JPEG", "e1", 3).toString();
    private static final String NODE = "node-1";

    @TempDir
    Path root;
    private Path mem;
    private Path ssd;
    private BlockFileReader reader;

    @BeforeEach
    void levels() throws IOException {
        mem = Files.createDirectories(root.resolve("mem"));
        ssd = Files.createDirectories(root.resolve("ssd/cache"));
    }

    @AfterEach
    void close() {
        if (reader != null) {
            reader.close();
        }
    }

    /** A block file as its worker installs it: bytes to a temporary file, then installed with its sidecar. */
    private static Path install(Path level, String dataset, String blockId, byte[] content) throws IOException {
        Path temp = BlockFileWriter.createTemp(level.toString(), dataset, blockId);
        Files.write(temp, content);
        Path file = BlockFiles.blockFile(level.toString(), dataset, blockId);
        BlockFileWriter.install(temp, file, new Sidecar(0x1234abcd, content.length, "train/a.jpg", "e1"));
        return file;
    }

    private static Path install(Path level, String blockId) throws IOException {
        return install(level, DATASET, blockId, new byte[] {1, 2, 3});
    }

    /** A worker on {@code node} whose levels are the memory and the disk directory, fastest first. */
    private Worker worker(String node, List<WorkerLevel> levels) {
        return new Worker("worker-1", node, "http://127.0.0.1:1", Map.of(), levels, Instant.now(), true, null, 0, 0, 0,
                null);
    }

    private Worker owner() {
        return worker(NODE, List.of(new WorkerLevel(Medium.MEM, mem.toString(), 1 << 30, 0),
                new WorkerLevel(Medium.SSD, ssd.toString(), 1L << 40, 0)));
    }

    /** Damage in place: same inode, a byte changed, and with it the modification time. */
    private static void writeInPlace(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {9}), 1);
        }
    }

    @Nested
    class Writing {

        @Test
        void anInstalledBlockIsWholeUnderItsNameWithItsSidecarAndSealed() throws IOException {
            Path temp = BlockFileWriter.createTemp(ssd.toString(), DATASET, BLOCK);
            Files.write(temp, new byte[] {1, 2, 3});
            Path file = BlockFiles.blockFile(ssd.toString(), DATASET, BLOCK);
            Sidecar sidecar = new Sidecar(0x8badf00d, 3, "train/n01440764/0001.JPEG", "\"e1\"");

            BlockFileWriter.install(temp, file, sidecar);

            assertThat(file).isEqualTo(ssd.resolve(DATASET).resolve(BLOCK)).hasBinaryContent(new byte[] {1, 2, 3});
            assertThat(temp).doesNotExist();
            assertThat(Files.getLastModifiedTime(file)).isEqualTo(FileTime.fromMillis(0));
            assertThat(BlockFiles.sealed(file)).isTrue();
            assertThat(BlockFiles.sidecarOf(file)).isEqualTo(ssd.resolve(DATASET).resolve(BLOCK + ".meta"));
            assertThat(Sidecar.read(BlockFiles.sidecarOf(file))).isEqualTo(sidecar);
            assertThat(Files.readString(BlockFiles.sidecarOf(file), StandardCharsets.UTF_8))
                    .as("plain properties an operator can read").contains("crc32c=8badf00d", "length=3");
        }

        @Test
        void aBlockIsWrittenUnderAHiddenTemporaryNameBesideIt() throws IOException {
            Path temp = BlockFileWriter.createTemp(mem.toString(), "coco", BLOCK);  // the dataset's first block here

            assertThat(temp.getParent()).isEqualTo(mem.resolve("coco"));
            assertThat(temp.getFileName().toString()).startsWith("." + BLOCK + ".").endsWith(".tmp");
            assertThat(BlockFiles.isTemporary(temp)).isTrue();
            assertThat(BlockFileWriter.createTemp(mem.toString(), "coco", BLOCK)).as("one per write")
                    .isNotEqualTo(temp);
            assertThat(BlockFiles.isTemporary(BlockFiles.blockFile(mem.toString(), "coco", BLOCK))).isFalse();
            assertThat(BlockFiles.isTemporary(mem.resolve("coco").resolve(BLOCK + ".tmp"))).isFalse();
        }

        @Test
        void aSidecarNamesItsBlockFile() {
            Path file = BlockFiles.blockFile(ssd.toString(), DATASET, BLOCK);

            assertThat(BlockFiles.isSidecar(BlockFiles.sidecarOf(file))).isTrue();
            assertThat(BlockFiles.isSidecar(file)).isFalse();
            assertThat(BlockFiles.blockFileOf(BlockFiles.sidecarOf(file))).isEqualTo(file);
        }

        @Test
        void anInstallAgainReplacesTheOlderCopy() throws IOException {
            Path file = install(ssd, DATASET, BLOCK, new byte[] {1, 2, 3});
            install(ssd, DATASET, BLOCK, new byte[] {4, 5});

            assertThat(file).hasBinaryContent(new byte[] {4, 5});
            assertThat(Sidecar.read(BlockFiles.sidecarOf(file)).length()).isEqualTo(2);
            try (Stream<Path> files = Files.list(file.getParent())) {
                assertThat(files).as("no temporary file left").hasSize(2);
            }
        }

        @Test
        void anInstallThatFailsLeavesNoSidecar() throws IOException {
            Path file = BlockFiles.blockFile(ssd.toString(), DATASET, BLOCK);
            Files.createDirectories(file.resolve("in-the-way"));  // a rename cannot replace a non-empty directory
            Path temp = BlockFileWriter.createTemp(ssd.toString(), DATASET, BLOCK);

            assertThatThrownBy(() -> BlockFileWriter.install(temp, file, new Sidecar(1, 0, "a", "e1")))
                    .isInstanceOf(IOException.class);
            assertThat(BlockFiles.sidecarOf(file)).doesNotExist();
            assertThat(temp).as("the caller's to delete").exists();
        }

        @Test
        void aDeletedBlockTakesItsSidecarWithIt() throws IOException {
            Path file = install(ssd, BLOCK);

            BlockFileWriter.delete(file);
            BlockFileWriter.delete(file);  // gone already: nothing to say

            assertThat(file).doesNotExist();
            assertThat(BlockFiles.sidecarOf(file)).doesNotExist();
        }

        @Test
        void aSidecarThatCannotBeReadIsAnError() throws IOException {
            Path file = install(ssd, BLOCK);
            Path sidecar = BlockFiles.sidecarOf(file);
            Files.writeString(sidecar, "crc32c=1\nlength=3\npath=a\n");  // no etag

            assertThatThrownBy(() -> Sidecar.read(sidecar)).isInstanceOf(IOException.class)
                    .hasMessageContaining("etag");
            Files.writeString(sidecar, "crc32c=not-hex\nlength=3\npath=a\netag=e1\n");
            assertThatThrownBy(() -> Sidecar.read(sidecar)).isInstanceOf(IOException.class);
            Files.delete(sidecar);
            assertThatThrownBy(() -> Sidecar.read(sidecar)).isInstanceOf(IOException.class);
        }

        @Test
        void aWriteToAnInstalledFileBreaksItsSealAndSealingMendsIt() throws IOException {
            Path file = install(ssd, BLOCK);

            writeInPlace(file);
            assertThat(BlockFiles.sealed(file)).isFalse();
            BlockFileWriter.seal(file);  // its worker checked it against its sidecar

            assertThat(BlockFiles.sealed(file)).isTrue();
            Files.setLastModifiedTime(file, FileTime.from(Instant.now()));  // touch(1)
            assertThat(BlockFiles.sealed(file)).isFalse();
            assertThat(BlockFiles.sealed(ssd.resolve("gone"))).isFalse();
        }
    }

    @Nested
    class Filling {

        @Test
        void aReaderFindsTheTemporaryFileItsWorkerNamedInThatLevel() throws IOException {
            Path temp = BlockFileWriter.createTemp(ssd.toString(), DATASET, BLOCK);
            reader = new BlockFileReader(NODE, 16, Long.MAX_VALUE);

            assertThat(reader.filling(owner(), DATASET, BLOCK, Medium.SSD, temp.getFileName().toString()))
                    .contains(temp);
            assertThat(reader.filling(worker("node-2", owner().levels()), DATASET, BLOCK, Medium.SSD,
                    temp.getFileName().toString())).as("another node's worker").isEmpty();
        }

        @ParameterizedTest
        @ValueSource(strings = {"../../etc/passwd", "other.tmp", ".x.tmp", "sub/.b.tmp", "", "BLOCK"})
        void aNameThatIsNotOneOfTheBlocksTemporaryFilesOpensNothing(String name) {
            reader = new BlockFileReader(NODE, 16, Long.MAX_VALUE);
            String named = name.replace("BLOCK", BLOCK);

            assertThat(reader.filling(owner(), DATASET, BLOCK, Medium.SSD, named)).isEmpty();
            assertThat(reader.filling(owner(), DATASET, BLOCK, Medium.SSD, "." + BLOCK + "./../x.tmp")).isEmpty();
            assertThat(reader.filling(owner(), DATASET, BLOCK, Medium.SSD, null)).isEmpty();
        }
    }

    @Nested
    class Finding {

        @Test
        void findsTheBlockFileInTheLevelThatHoldsIt() throws IOException {
            Path file = install(ssd, BLOCK);

            assertThat(new BlockFileReader(NODE, 0, 1).find(owner(), DATASET, BLOCK)).contains(file);
        }

        @Test
        void theFasterLevelIsReadWhenTwoHoldTheBlock() throws IOException {
            // A move between levels that a crash interrupted leaves a copy in each.
            Path inMemory = install(mem, BLOCK);
            install(ssd, BLOCK);

            assertThat(new BlockFileReader(NODE, 0, 1).find(owner(), DATASET, BLOCK)).contains(inMemory);
        }

        @Test
        void aBlockNotHeldIsNotFound() throws IOException {
            install(ssd, BlockId.of(DATASET, "train/n01440764/0001.JPEG", "e1", 4).toString());
            reader = new BlockFileReader(NODE, 16, 1);

            assertThat(reader.find(owner(), DATASET, BLOCK)).isEmpty();
            assertThat(reader.open(owner(), DATASET, BLOCK)).isEmpty();
            assertThat(reader.find(worker(NODE, List.of()), DATASET, BLOCK)).as("a worker with no levels").isEmpty();
        }

        @Test
        void aBlockBeingWrittenIsNotFound() throws IOException {
            Files.write(BlockFileWriter.createTemp(ssd.toString(), DATASET, BLOCK), new byte[] {1, 2, 3});
            Path file = BlockFiles.blockFile(ssd.toString(), DATASET, BLOCK);
            new Sidecar(1, 3, "a", "e1").write(BlockFiles.sidecarOf(file));
            reader = new BlockFileReader(NODE, 16, 1);

            assertThat(reader.find(owner(), DATASET, BLOCK)).isEmpty();
            assertThat(reader.open(owner(), DATASET, BLOCK)).isEmpty();
        }

        @Test
        void theBlockOfAnotherDatasetIsNotFound() throws IOException {
            install(ssd, "coco", BLOCK, new byte[] {1});

            assertThat(new BlockFileReader(NODE, 0, 1).find(owner(), DATASET, BLOCK)).isEmpty();
        }

        @Test
        void onlyARegularFileIsABlock() throws IOException {
            Files.createDirectories(mem.resolve(DATASET).resolve(BLOCK));
            Path file = install(ssd, BLOCK);

            assertThat(new BlockFileReader(NODE, 0, 1).find(owner(), DATASET, BLOCK)).contains(file);
        }

        @Test
        void aLevelDirectoryThatIsNotThereIsPassedOver() throws IOException {
            Path file = install(ssd, BLOCK);
            Worker withMissing = worker(NODE, List.of(
                    new WorkerLevel(Medium.MEM, root.resolve("not-mounted-here").toString(), 1, 0),
                    new WorkerLevel(Medium.SSD, ssd.toString(), 1L << 40, 0)));

            assertThat(new BlockFileReader(NODE, 0, 1).find(withMissing, DATASET, BLOCK)).contains(file);
        }

        @Test
        void theFilesOfAWorkerOnAnotherNodeAreNotRead() throws IOException {
            install(ssd, BLOCK);  // its level directory is visible here, as in a test on one machine
            Worker elsewhere = worker("node-2", owner().levels());
            reader = new BlockFileReader(NODE, 16, 1);

            assertThat(reader.reaches(owner())).isTrue();
            assertThat(reader.reaches(elsewhere)).isFalse();
            assertThat(reader.find(elsewhere, DATASET, BLOCK)).isEmpty();
            assertThat(reader.open(elsewhere, DATASET, BLOCK)).isEmpty();
        }

        @Test
        void aBlockFileWrittenToSinceItWasInstalledIsLeftToItsWorker() throws IOException {
            Path file = install(ssd, BLOCK);
            reader = new BlockFileReader(NODE, 16, 1);
            reader.open(owner(), DATASET, BLOCK).orElseThrow().release();  // kept open

            writeInPlace(file);

            assertThat(reader.find(owner(), DATASET, BLOCK)).isEmpty();
            assertThat(reader.open(owner(), DATASET, BLOCK)).as("not read, even kept open").isEmpty();
            assertThat(reader.size()).isZero();
        }

        @Test
        void aFileInMemoryIsMappedAndOneOnDiskIsNot() throws IOException {
            install(ssd, BLOCK);
            String other = BlockId.of(DATASET, "train/n01440764/0002.JPEG", "e1", 0).toString();
            install(mem, other);
            reader = new BlockFileReader(NODE, 16, 1);

            OpenBlockFile onDisk = reader.open(owner(), DATASET, BLOCK).orElseThrow();
            OpenBlockFile inMemory = reader.open(owner(), DATASET, other).orElseThrow();

            assertThat(onDisk.isMapped()).isFalse();
            assertThat(inMemory.isMapped()).isTrue();
            onDisk.release();
            inMemory.release();
        }

        @Test
        void aBlockMovedToAnotherLevelIsFoundWhereItIsNow() throws IOException {
            Path onDisk = install(ssd, BLOCK);
            reader = new BlockFileReader(NODE, 16, 1);
            reader.open(owner(), DATASET, BLOCK).orElseThrow().release();  // kept open from disk

            // The worker promotes it: written in memory, then removed from disk.
            Path inMemory = install(mem, BLOCK);
            BlockFileWriter.delete(onDisk);
            OpenBlockFile now = reader.open(owner(), DATASET, BLOCK).orElseThrow();

            assertThat(now.isMapped()).as("read from memory now").isTrue();
            now.release();
            BlockFileWriter.delete(inMemory);  // evicted
            assertThat(reader.open(owner(), DATASET, BLOCK)).isEmpty();
        }

        @Test
        void aRangeIsReadIntoTheCallersBuffer() throws IOException {
            install(ssd, DATASET, BLOCK, new byte[] {1, 2, 3, 4, 5, 6});
            reader = new BlockFileReader(NODE, 16, Long.MAX_VALUE);
            OpenBlockFile file = reader.open(owner(), DATASET, BLOCK).orElseThrow();
            ByteBuffer dst = ByteBuffer.allocate(8).put((byte) 7);

            file.read(2, 3, dst);

            assertThat(dst.position()).isEqualTo(4);
            assertThat(dst.array()).startsWith(7, 3, 4, 5, 0);
            assertThatThrownBy(() -> file.read(4, 3, ByteBuffer.allocate(3))).isInstanceOf(EOFException.class)
                    .hasMessageContaining("ended after 6 bytes");
            file.release();
        }
    }

    /**
     * Files kept open between reads, laid out and replaced as the block-service does it. This process's open file
     * descriptors and mappings of the memory level's files are counted as the kernel has them.
     */
    @Nested
    class KeepingOpen {

        private Path block(String path, String etag, byte[] content) throws IOException {
            return install(mem, DATASET, BlockId.of(DATASET, path, etag, 0).toString(), content);
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
                return maps.filter(line -> line.contains(mem.toString())).count();
            }
        }

        /** This process's open file descriptors on block files of the level. */
        private long openDescriptors() throws IOException {
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                return fds.filter(fd -> {
                    try {
                        return Files.readSymbolicLink(fd).startsWith(mem);
                    } catch (IOException e) {
                        return false;  // the descriptor of the listing itself, closed meanwhile
                    }
                }).count();
            }
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void aWarmReadReusesTheOpenFile(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 8, 1);
            Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});

            OpenBlockFile first = reader.open(block, inMemory).orElseThrow();
            OpenBlockFile second = reader.open(block, inMemory).orElseThrow();

            assertThat(second).isSameAs(first);
            assertThat(read(first)).containsExactly(1, 2, 3);
            assertThat(read(second)).containsExactly(1, 2, 3);
            assertThat(openDescriptors()).isEqualTo(1);
            assertThat(mappings()).as("mapped once, while kept").isEqualTo(inMemory ? 1 : 0);
        }

        @Test
        void aKeptFileWhoseChannelAReaderInterruptedClosedIsOpenedAgain() throws IOException {
            reader = new BlockFileReader(NODE, 8, Long.MAX_VALUE);
            Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
            OpenBlockFile first = reader.open(block, false).orElseThrow();
            // A reader on an interrupted thread (a FUSE request given up on): its read closes the shared channel.
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> first.channel().read(ByteBuffer.allocate(3), 0))
                    .isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
            assertThat(Thread.interrupted()).isTrue();
            first.release();

            OpenBlockFile second = reader.open(block, false).orElseThrow();

            assertThat(second).isNotSameAs(first);
            assertThat(read(second)).containsExactly(1, 2, 3);
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void anEvictedBlockIsNotServedFromAnOpenFile(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 8, 1);
            Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
            read(reader.open(block, inMemory).orElseThrow());

            BlockFileWriter.delete(block);  // the worker evicts it, or the dataset's cache is freed

            assertThat(reader.open(block, inMemory)).isEmpty();
            assertThat(reader.size()).isZero();
            assertThat(openDescriptors()).as("closed when found gone").isZero();
            assertThat(mappings()).as("and unmapped").isZero();
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void anEvictedBlockNotReadAgainIsClosedByTheCheck(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 8, 1);
            Path evicted = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
            Path refilled = block("train/0002.JPEG", "e1", new byte[] {4});
            Path kept = block("train/0003.JPEG", "e1", new byte[] {5});
            read(reader.open(evicted, inMemory).orElseThrow());
            read(reader.open(refilled, inMemory).orElseThrow());
            read(reader.open(kept, inMemory).orElseThrow());

            BlockFileWriter.delete(evicted);
            block("train/0002.JPEG", "e1", new byte[] {6});  // evicted and filled again: another file under the name
            reader.closeStale();

            assertThat(reader.size()).as("only the file still under its name").isEqualTo(1);
            assertThat(reader.keeps(kept)).isTrue();
            assertThat(openDescriptors()).isEqualTo(1);
            assertThat(mappings()).isEqualTo(inMemory ? 1 : 0);
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void aBlockWrittenAnewUnderItsNameIsOpenedAfresh(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 8, 1);
            Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
            OpenBlockFile before = reader.open(block, inMemory).orElseThrow();
            read(before);

            // Evicted and filled again while the file stayed open here: another inode under the same name.
            block("train/0001.JPEG", "e1", new byte[] {4, 5, 6, 7});
            OpenBlockFile after = reader.open(block, inMemory).orElseThrow();

            assertThat(after).isNotSameAs(before);
            assertThat(before.channel().isOpen()).as("the old file closed once no read holds it").isFalse();
            assertThat(read(after)).containsExactly(4, 5, 6, 7);
            assertThat(mappings()).as("only the new file mapped").isEqualTo(inMemory ? 1 : 0);
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void aNewVersionOfAnObjectIsNeverServedFromTheOldVersionsFile(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 8, 1);
            Path old = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
            read(reader.open(old, inMemory).orElseThrow());

            Path replaced = BlockFiles.blockFile(mem.toString(), DATASET,
                    BlockId.of(DATASET, "train/0001.JPEG", "e2", 0).toString());

            assertThat(replaced).as("a block is named by its object's etag").isNotEqualTo(old);
            assertThat(reader.open(replaced, inMemory)).as("not cached yet: read another way").isEmpty();
            Path filled = block("train/0001.JPEG", "e2", new byte[] {9, 9});
            assertThat(read(reader.open(filled, inMemory).orElseThrow())).containsExactly(9, 9);
        }

        @ParameterizedTest(name = "in memory: {0}")
        @ValueSource(booleans = {false, true})
        void aFileDroppedFromTheCacheWhileBeingSentStaysOpenUntilTheSendIsDone(boolean inMemory) throws IOException {
            reader = new BlockFileReader(NODE, 1, 1);
            OpenBlockFile sending = reader.open(block("a", "e1", new byte[] {1}), inMemory).orElseThrow();

            read(reader.open(block("b", "e1", new byte[] {2}), inMemory).orElseThrow());  // pushes "a" out

            assertThat(reader.size()).isEqualTo(1);
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
            reader = new BlockFileReader(NODE, limit, 1);
            long most = 0;
            long mostMapped = 0;
            for (int i = 0; i < 10_000; i++) {
                Path block = block("train/%05d.JPEG".formatted(i), "e1", new byte[] {(byte) i});
                assertThat(read(reader.open(block, inMemory).orElseThrow())).containsExactly((byte) i);
                if (i % 250 == 0 || i >= 9_990) {
                    most = Math.max(most, openDescriptors());
                    mostMapped = Math.max(mostMapped, mappings());
                }
            }

            assertThat(reader.size()).isEqualTo(limit);
            assertThat(most).isLessThanOrEqualTo(limit);
            assertThat(openDescriptors()).isEqualTo(limit);
            assertThat(mostMapped).as("mappings count against vm.max_map_count")
                    .isLessThanOrEqualTo(inMemory ? limit : 0);
            assertThat(mappings()).isEqualTo(inMemory ? limit : 0);
            reader.close();
            assertThat(openDescriptors()).isZero();
            assertThat(mappings()).isZero();
        }

        @Test
        void onlyAFileInMemoryOfTheSizeToMapIsMapped() throws IOException {
            reader = new BlockFileReader(NODE, 8, 2048);
            OpenBlockFile small = reader.open(block("small", "e1", new byte[2047]), true).orElseThrow();
            OpenBlockFile big = reader.open(block("big", "e1", new byte[2048]), true).orElseThrow();
            OpenBlockFile onDisk = reader.open(block("on-disk", "e1", new byte[4096]), false).orElseThrow();

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
            assertThat(BlockFileReader.limit(1_000_000)).isEqualTo((int) Math.min(1_000_000, half));
            assertThat(BlockFileReader.limit(10)).isEqualTo((int) Math.min(10, half));
        }

        @Test
        void noLimitOpensAndClosesAFilePerRead() throws IOException {
            reader = new BlockFileReader(NODE, 0, 1);
            Path block = block("train/0001.JPEG", "e1", new byte[] {1});

            OpenBlockFile file = reader.open(block, true).orElseThrow();
            assertThat(file.isMapped()).as("a file opened for one read is sent, not mapped").isFalse();
            assertThat(read(file)).containsExactly(1);

            assertThat(reader.size()).isZero();
            assertThat(openDescriptors()).isZero();
        }
    }
}
