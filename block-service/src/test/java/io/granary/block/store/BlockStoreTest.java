package io.granary.block.store;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.kit.blockfile.BlockFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The block store on real directories: watermarks, spilling, quotas, restart and integrity. */
class BlockStoreTest {

    private static final int KIB = 1024;

    @TempDir
    Path dir;

    private final List<StoredBlock> evicted = new ArrayList<>();
    private final List<StoredBlock> corrupt = new ArrayList<>();
    private final BlockListener listener = new BlockListener() {
        @Override
        public void cached(StoredBlock block) {
        }

        @Override
        public void evicted(StoredBlock block) {
            evicted.add(block);
        }

        @Override
        public void corrupt(StoredBlock block) {
            corrupt.add(block);
        }
    };

    @Test
    void passingTheHighWatermarkEvictsDownToTheLowOne() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 100 * KIB, 0.9, 0.5));
        for (int i = 0; i < 9; i++) {
            put(store, key(i), 10 * KIB);
            assertThat(usedOf(store, 0)).as("after block %d", i).isEqualTo((i + 1) * 10L * KIB);
        }
        put(store, key(9), 10 * KIB);  // 100 KiB > 90 KiB high: down to 50 KiB low

        assertThat(usedOf(store, 0)).isEqualTo(50 * KIB);
        assertThat(evicted).extracting(StoredBlock::key).containsExactly(key(0), key(1), key(2), key(3), key(4));
        for (StoredBlock gone : evicted) {
            assertThat(gone.file()).doesNotExist();
        }
        assertThat(store.find(key(9))).isPresent();
    }

    @Test
    void evictionFollowsRecentUse() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 100 * KIB, 0.9, 0.5));
        for (int i = 0; i < 9; i++) {
            put(store, key(i), 10 * KIB);
        }
        store.find(key(0));  // read again: now the most recently used
        put(store, key(9), 10 * KIB);

        assertThat(store.holds(key(0))).isTrue();
        assertThat(store.holds(key(1))).isFalse();
    }

    @Test
    void aFullMemLevelSpillsToTheSsdLevelAndNothingPassesItsQuota() throws IOException {
        BlockStore store = open(
                new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 64 * KIB, 0.95, 0.7),
                new LevelSpec(Medium.SSD, List.of(dir.resolve("ssd-a"), dir.resolve("ssd-b")), 256 * KIB, 0.95, 0.7));
        List<BlockKey> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            keys.add(key(i));
            put(store, key(i), 8 * KIB);
            for (Level level : store.levels()) {
                assertThat(level.used()).as("%s after block %d", level, i).isLessThanOrEqualTo(level.quota());
            }
        }
        StoredBlock newest = store.find(key(39)).orElseThrow();
        assertThat(newest.medium()).as("new blocks go to the fastest level").isEqualTo(Medium.MEM);
        assertThat(store.find(key(0))).as("the oldest left the node").isEmpty();
        long onSsd = keys.stream().map(store::find).filter(b -> b.isPresent() && b.get().medium() == Medium.SSD).count();
        assertThat(onSsd).as("MEM's victims moved down instead of leaving").isGreaterThan(20);
        assertThat(store.levels().get(1).dirs()).allSatisfy(ssd -> assertThat(ssd.used()).isPositive());
        for (BlockKey key : keys) {
            store.find(key).ifPresent(block -> assertThat(verified(store, block)).isTrue());
        }
        assertThat(evicted).isNotEmpty().allSatisfy(block -> assertThat(block.medium()).isEqualTo(Medium.SSD));
        long levelSum = store.workerLevels().stream().mapToLong(WorkerLevel::usedBytes).sum();
        assertThat(levelSum).isEqualTo(store.bytesByDataset().get("ds"));
    }

    @Test
    void aBlockWrittenToSinceItsInstallIsNotMovedDownAsWhole() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 64 * KIB, 0.95, 0.7),
                new LevelSpec(Medium.SSD, List.of(dir.resolve("ssd")), 256 * KIB, 0.95, 0.7));
        StoredBlock damaged = put(store, key(0), 8 * KIB);
        try (FileChannel channel = FileChannel.open(damaged.file(), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[100]), 1000);
        }
        for (int i = 1; i <= 20; i++) {
            put(store, key(i), 8 * KIB);  // MEM spills to SSD, its oldest block first
        }

        assertThat(store.find(key(1))).as("the next oldest moved down").get()
                .extracting(StoredBlock::medium).isEqualTo(Medium.SSD);
        assertThat(store.find(key(0))).as("evicted, not copied with the checksum of bytes it no longer has")
                .isEmpty();
    }

    @Test
    void aBlockNoLevelCanHoldIsRefused() {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 64 * KIB, 0.95, 0.7));
        assertThat(store.reserve(key(1), 65 * KIB)).isEmpty();
        try (BlockWriter writer = store.reserve(key(1), 64 * KIB).orElseThrow()) {
            assertThat(writer.room()).isEqualTo(64 * KIB);
        }
    }

    @Test
    void aRestartKeepsEveryIntactBlockAndDropsTheRest() throws IOException {
        LevelSpec mem = new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7);
        LevelSpec ssd = new LevelSpec(Medium.SSD, List.of(dir.resolve("ssd")), 1024 * KIB, 0.95, 0.7);
        BlockStore before = open(mem, ssd);
        List<StoredBlock> blocks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            blocks.add(put(before, key(i), 7 * KIB + i));
        }
        flipAByte(blocks.get(3).file());
        Files.delete(BlockFiles.sidecarOf(before.find(key(4)).orElseThrow().file()));
        Path leftover = blocks.get(0).file().resolveSibling("." + key(11).id() + ".interrupted.tmp");
        Files.write(leftover, new byte[100]);

        BlockStore after = open(mem, ssd);

        for (int i = 0; i < 10; i++) {
            if (i == 3 || i == 4) {
                assertThat(after.find(key(i))).as("block %d", i).isEmpty();
            } else {
                StoredBlock block = after.find(key(i)).orElseThrow();
                assertThat(block).as("block %d", i).usingRecursiveComparison().ignoringFields("dir")
                        .isEqualTo(blocks.get(i));
                assertThat(block.file()).isEqualTo(blocks.get(i).file());
                assertThat(Files.readAllBytes(block.file())).isEqualTo(content(key(i), 7 * KIB + i));
            }
        }
        assertThat(corrupt).extracting(StoredBlock::key).containsExactly(key(3));
        assertThat(blocks.get(3).file()).doesNotExist();
        assertThat(leftover).doesNotExist();
        assertThat(after.levels().get(0).used()).isEqualTo(
                blocks.stream().filter(b -> !b.key().equals(key(3)) && !b.key().equals(key(4)))
                        .mapToLong(StoredBlock::length).sum());
    }

    @Test
    void aBlockDamagedOnDiskFailsVerificationAndIsDropped() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7));
        StoredBlock block = put(store, key(1), 100 * KIB);
        assertThat(store.sealed(block)).as("as installed").isTrue();
        assertThat(store.verify(block)).isTrue();
        flipAByte(block.file());

        assertThat(store.sealed(block)).as("written to since").isFalse();
        assertThat(store.verify(block)).isFalse();
        assertThat(store.holds(key(1))).isFalse();
        assertThat(corrupt).containsExactly(block);
        assertThat(store.levels().get(0).used()).isZero();
    }

    @Test
    void aBlockTouchedButWholeIsSealedAgainOnceVerified() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7));
        StoredBlock block = put(store, key(1), 100 * KIB);
        Files.setLastModifiedTime(block.file(), FileTime.from(Instant.now()));  // touch(1): bytes unchanged
        assertThat(store.sealed(block)).isFalse();

        assertThat(store.verify(block)).isTrue();
        assertThat(store.sealed(block)).isTrue();
        assertThat(corrupt).isEmpty();
    }

    @Test
    void aRestartWithoutVerificationStillChecksTheBlocksWrittenToSinceTheirInstall() throws IOException {
        LevelSpec mem = new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7);
        BlockStore before = open(mem);
        StoredBlock damaged = put(before, key(1), 10 * KIB);
        StoredBlock whole = put(before, key(2), 10 * KIB);
        flipAByte(damaged.file());

        BlockStore after = BlockStore.open(List.of(mem), LruPolicy::new, Admission.ALWAYS, listener, false);

        assertThat(after.find(key(1))).isEmpty();
        assertThat(corrupt).extracting(StoredBlock::key).containsExactly(key(1));
        assertThat(after.sealed(after.find(key(2)).orElseThrow())).isTrue();
        assertThat(Files.readAllBytes(whole.file())).isEqualTo(content(key(2), 10 * KIB));
    }

    @Test
    void evictionByPathPrefixAndOfStaleVersions() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7));
        BlockKey trainOld = new BlockKey("ds", BlockId.of("ds", "train/a", "v1", 0));
        BlockKey trainNew = new BlockKey("ds", BlockId.of("ds", "train/a", "v2", 0));
        BlockKey val = new BlockKey("ds", BlockId.of("ds", "val/b", "v1", 0));
        put(store, trainOld, "train/a", "v1", KIB);
        put(store, trainNew, "train/a", "v2", KIB);
        put(store, val, "val/b", "v1", KIB);

        assertThat(store.evictStale("ds", "train/a", "v2")).isEqualTo(new BlockStore.Eviction(1, KIB));
        assertThat(store.holds(trainOld)).isFalse();
        assertThat(store.evict("ds", "val/")).isEqualTo(new BlockStore.Eviction(1, KIB));
        assertThat(store.holds(trainNew)).isTrue();
        assertThat(store.evict("ds", "")).isEqualTo(new BlockStore.Eviction(1, KIB));
        assertThat(store.blockCount()).isZero();
    }

    @Test
    void freeingAPathTakesTheFileOrDirectoryItNamesAndNothingThatOnlySharesItsPrefix() throws IOException {
        BlockStore store = open(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024 * KIB, 0.95, 0.7));
        List<String> paths = List.of("train/a", "train/a/0.jpg", "train/ab.jpg", "train/b/1.jpg", "val/a");
        for (String path : paths) {
            put(store, new BlockKey("ds", BlockId.of("ds", path, "v1", 0)), path, "v1", KIB);
        }
        put(store, new BlockKey("other", BlockId.of("other", "train/a", "v1", 0)), "train/a", "v1", KIB);

        assertThat(store.evictUnder("ds", "train/a")).isEqualTo(new BlockStore.Eviction(2, 2 * KIB));
        assertThat(store.evictUnder("ds", "train/b/")).isEqualTo(new BlockStore.Eviction(1, KIB));
        assertThat(store.holds(new BlockKey("ds", BlockId.of("ds", "train/ab.jpg", "v1", 0)))).isTrue();
        assertThat(store.evictUnder("ds", "")).isEqualTo(new BlockStore.Eviction(2, 2 * KIB));
        assertThat(store.blockCount()).as("another dataset's block of the same path").isOne();
    }

    @Test
    void anIdleDatasetGivesItsBlocksUpAndABusyOneNever() throws IOException {
        long[] now = {0};
        long idleAfter = 1_000;
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 10 * KIB,
                0.95, 0.7)), ClockPolicy::new, new TinyLfuAdmission(64, 1, idleAfter, () -> now[0]), listener, true);
        List<BlockKey> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {  // "busy" fills the cache, each block read as a reader reads it
            BlockKey key = new BlockKey("busy", BlockId.of("busy", "f-" + i, "e", 0));
            store.find(key);
            put(store, key, KIB);
            held.add(key);
        }

        now[0] = idleAfter;  // "busy" was read at 0: not idle yet
        for (int i = 0; i < 10; i++) {
            BlockKey key = new BlockKey("other", BlockId.of("other", "f-" + i, "e", 0));
            store.find(key);
            assertThat(store.reserve(key, KIB)).as("a newcomer of another dataset while busy is busy").isEmpty();
        }
        assertThat(held).allMatch(store::holds);

        now[0] = 2 * idleAfter + 1;  // nobody read "busy" for longer than idle-after
        BlockKey newcomer = new BlockKey("other", BlockId.of("other", "g", "e", 0));
        store.find(newcomer);
        put(store, newcomer, KIB);

        assertThat(store.holds(newcomer)).isTrue();
        assertThat(held.stream().filter(store::holds)).as("one block of the idle dataset made room").hasSize(9);
    }

    @Test
    void aDatasetsShareHoldsUnderPressureFromAnother() throws IOException {
        for (boolean always : new boolean[] {true, false}) {
            Admission admission = always ? Admission.ALWAYS : new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0);
            BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("share-" + always)),
                    20 * KIB, 0.95, 0.7)), always ? LruPolicy::new : ClockPolicy::new, admission,
                    dataset -> dataset.equals("kept") ? 0.5 : 0, listener, true);
            for (int i = 0; i < 20; i++) {
                read(store, new BlockKey("kept", BlockId.of("kept", "f-" + i, "e", 0)), KIB);
            }
            for (int round = 0; round < 5; round++) {  // read far more often than "kept": TinyLFU would take them all
                for (int i = 0; i < 40; i++) {
                    read(store, new BlockKey("busy", BlockId.of("busy", "f-" + i, "e", 0)), KIB);
                }
            }

            assertThat(store.bytesByDataset().get("kept")).as("admission %s: its share, 10 KiB", admission)
                    .isEqualTo(10L * KIB);
            assertThat(store.bytesByDataset().get("busy")).as("the rest").isPositive();
        }
    }

    @Test
    void aDatasetBelowItsShareTakesRoomWhateverAdmissionSays() throws IOException {
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("late")), 20 * KIB,
                0.95, 0.7)), ClockPolicy::new, new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0),
                dataset -> dataset.equals("late") ? 0.25 : 0, listener, true);
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 20; i++) {
                read(store, new BlockKey("first", BlockId.of("first", "f-" + i, "e", 0)), KIB);
            }
        }
        for (int i = 0; i < 10; i++) {  // each read once: never more often than a block of "first"
            read(store, new BlockKey("late", BlockId.of("late", "f-" + i, "e", 0)), KIB);
        }

        assertThat(store.bytesByDataset()).containsEntry("late", 5L * KIB).containsEntry("first", 15L * KIB);
    }

    @Test
    void aBlockAskedForIsStoredWhereAdmissionRefusesAReadersMiss() throws IOException {
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("asked")), 20 * KIB,
                0.95, 0.7)), ClockPolicy::new, new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0), listener, true);
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 20; i++) {
                read(store, new BlockKey("hot", BlockId.of("hot", "f-" + i, "e", 0)), KIB);
            }
        }
        BlockKey missed = new BlockKey("load", BlockId.of("load", "f-0", "e", 0));
        assertThat(store.reserve(missed, KIB)).as("a reader's miss, read once").isEmpty();

        BlockKey preloaded = new BlockKey("load", BlockId.of("load", "f-1", "e", 0));
        try (BlockWriter writer = store.reserve(preloaded, KIB, true).orElseThrow()) {
            writer.write(content(preloaded, KIB), 0, KIB);
            writer.commit("f-1", "e");
        }
        assertThat(store.peek(preloaded)).as("a DataLoad's block").isPresent();
    }

    /** A reader's read as the worker serves it: counted, then stored on a miss when the store takes it. */
    private void read(BlockStore store, BlockKey key, int length) throws IOException {
        if (store.find(key).isEmpty()) {
            Optional<BlockWriter> room = store.reserve(key, length);
            if (room.isPresent()) {
                try (BlockWriter writer = room.get()) {
                    writer.write(content(key, length), 0, length);
                    writer.commit("file", "etag");
                }
            }
        }
    }

    @Test
    void aLevelWhoseDiskFilledUpIsPassedOverByTheNextReservation() throws IOException, InterruptedException {
        // The SSD level's quota says 8 MiB, its file system has 512 KiB: a disk filled by something else.
        Path small = Files.createDirectories(dir.resolve("small-disk"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", small.toString())
                .redirectErrorStream(true).start();
        assumeTrue(mount.waitFor() == 0, "a tmpfs can be mounted here (root): " + new String(
                mount.getInputStream().readAllBytes()).trim());
        try {
            BlockStore store = open(new LevelSpec(Medium.SSD, List.of(small.resolve("ssd")), 8L << 20, 0.9, 0.5),
                    new LevelSpec(Medium.HDD, List.of(dir.resolve("hdd")), 8L << 20, 0.9, 0.5));
            BlockWriter first = store.reserve(key(0), 300 * KIB).orElseThrow();
            assertThat(first.dir().level().medium()).isEqualTo(Medium.SSD);
            Files.write(small.resolve("other"), new byte[400 * KIB]);  // another writer takes the disk meanwhile

            byte[] content = content(key(0), 300 * KIB);
            assertThatThrownBy(() -> first.write(content, 0, content.length)).isInstanceOf(IOException.class);
            first.close();
            try (BlockWriter again = store.reserve(key(0), 300 * KIB).orElseThrow()) {
                assertThat(again.dir().level().medium()).as("the level whose disk has room").isEqualTo(Medium.HDD);
                again.write(content, 0, content.length);
                assertThat(verified(store, again.commit("file", "etag"))).isTrue();
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    private BlockStore open(LevelSpec... levels) {
        return BlockStore.open(List.of(levels), LruPolicy::new, Admission.ALWAYS, listener, true);
    }

    private static BlockKey key(int i) {
        return new BlockKey("ds", BlockId.of("ds", "file-" + i, "etag", 0));
    }

    private StoredBlock put(BlockStore store, BlockKey key, int length) throws IOException {
        return put(store, key, "file", "etag", length);
    }

    private StoredBlock put(BlockStore store, BlockKey key, String path, String etag, int length) throws IOException {
        byte[] content = content(key, length);
        try (BlockWriter writer = store.reserve(key, length).orElseThrow()) {
            writer.write(content, 0, length);
            return writer.commit(path, etag);
        }
    }

    private static byte[] content(BlockKey key, int length) {
        byte[] content = new byte[length];
        new Random(key.hashCode()).nextBytes(content);
        return content;
    }

    private static boolean verified(BlockStore store, StoredBlock block) {
        return store.verify(block);
    }

    private static long usedOf(BlockStore store, int level) {
        return store.levels().get(level).used();
    }

    private static void flipAByte(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, 100);
            one.flip();
            one.put(0, (byte) (one.get(0) ^ 0x5a));
            channel.write(one, 100);
        }
    }
}
