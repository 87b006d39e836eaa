package io.granary.block.store;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.worker.Medium;
import io.granary.kit.blockfile.BlockFiles;
import io.granary.kit.blockfile.Sidecar;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The one write protocol of the store, on real directories: reserve, write, then commit or abort. */
class BlockWriterTest {

    private static final BlockKey KEY = new BlockKey("ds", BlockId.of("ds", "train/a.jpg", "e1", 0));

    @TempDir
    Path dir;
    private BlockStore store;
    private Level level;

    @BeforeEach
    void open() {
        store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 1024, 0.95, 0.7)),
                LruPolicy::new, Admission.ALWAYS, BlockListener.NONE, true);
        level = store.levels().get(0);
    }

    private static int crc32c(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }

    private List<Path> filesOfTheDataset() throws IOException {
        try (var files = Files.list(dir.resolve("mem").resolve("ds"))) {
            return files.toList();
        }
    }

    @Test
    void aCommittedBlockIsInstalledWithItsChecksumAndHeld() throws IOException {
        BlockWriter writer = store.reserve(KEY, 100).orElseThrow();
        assertThat(level.used()).as("reserved before a byte is written").isEqualTo(100);

        writer.write(new byte[] {1, 2, 3, 4}, 1, 2);
        writer.write(new byte[] {9}, 0, 1);
        StoredBlock block = writer.commit("train/a.jpg", "e1");

        assertThat(block.file()).hasBinaryContent(new byte[] {2, 3, 9});
        assertThat(block.length()).isEqualTo(3);
        assertThat(Sidecar.read(BlockFiles.sidecarOf(block.file())))
                .isEqualTo(new Sidecar(crc32c(new byte[] {2, 3, 9}), 3, "train/a.jpg", "e1"));
        assertThat(BlockFiles.sealed(block.file())).isTrue();
        assertThat(store.find(KEY)).contains(block);
        assertThat(level.used()).as("the block's bytes, the rest of the room given back").isEqualTo(3);
        assertThat(filesOfTheDataset()).containsExactlyInAnyOrder(block.file(), BlockFiles.sidecarOf(block.file()));
    }

    @Test
    void anAbortedWriteLeavesNothingAndGivesItsRoomBack() throws IOException {
        BlockWriter writer = store.reserve(KEY, 100).orElseThrow();
        writer.write(new byte[] {1, 2, 3}, 0, 3);

        writer.abort();
        writer.abort();
        writer.close();

        assertThat(level.used()).as("given back once").isZero();
        assertThat(writer.temp()).doesNotExist();
        assertThat(store.holds(KEY)).isFalse();
        assertThatThrownBy(() -> writer.commit("train/a.jpg", "e1")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingACommittedWriteChangesNothing() throws IOException {
        StoredBlock block;
        try (BlockWriter writer = store.reserve(KEY, 100).orElseThrow()) {
            writer.write(new byte[] {1}, 0, 1);
            block = writer.commit("train/a.jpg", "e1");
        }

        assertThat(block.file()).exists();
        assertThat(level.used()).isEqualTo(1);
    }

    @Test
    void noMoreBytesThanTheRoomReservedAreWritten() throws IOException {
        BlockWriter writer = store.reserve(KEY, 4).orElseThrow();
        writer.write(new byte[] {1, 2, 3}, 0, 3);

        assertThat(writer.fits(1)).isTrue();
        assertThat(writer.fits(2)).isFalse();
        assertThatThrownBy(() -> writer.write(new byte[] {4, 5}, 0, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> writer.wrote(ByteBuffer.wrap(new byte[] {4, 5})))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(writer.length()).isEqualTo(3);
        assertThat(writer.temp()).hasBinaryContent(new byte[] {1, 2, 3});
        writer.abort();
    }

    @Test
    void aRestartDropsWhatWasWritten() throws IOException {
        BlockWriter writer = store.reserve(KEY, 100).orElseThrow();
        writer.write(new byte[] {1, 2, 3, 4, 5}, 0, 5);  // a hand-over that broke off

        writer.restart();
        writer.write(new byte[] {7, 8}, 0, 2);
        StoredBlock block = writer.commit("train/a.jpg", "e1");

        assertThat(block.file()).hasBinaryContent(new byte[] {7, 8});
        assertThat(block.crc32c()).isEqualTo(crc32c(new byte[] {7, 8}));
        assertThat(store.verify(block)).isTrue();
    }

    @Test
    void bytesTheCallerWroteItselfAreCountedAndCommitted() throws IOException {
        BlockWriter writer = store.reserve(KEY, 100).orElseThrow();
        byte[] body = {5, 6, 7};
        Files.write(writer.temp(), body);  // as a PUT's asynchronous file does
        writer.wrote(ByteBuffer.wrap(body, 0, 2));
        writer.wrote(ByteBuffer.wrap(body, 2, 1));

        StoredBlock block = writer.commit("train/a.jpg", "e1");

        assertThat(block.length()).isEqualTo(3);
        assertThat(block.crc32c()).isEqualTo(crc32c(body));
        assertThat(store.verify(block)).isTrue();
    }

    @Test
    void aCommitReplacesTheCopyHeld() throws IOException {
        BlockWriter first = store.reserve(KEY, 100).orElseThrow();
        first.write(new byte[] {1, 2, 3}, 0, 3);
        first.commit("train/a.jpg", "e1");
        BlockWriter second = store.reserve(KEY, 100).orElseThrow();
        second.write(new byte[] {4}, 0, 1);

        StoredBlock block = second.commit("train/a.jpg", "e1");

        assertThat(store.find(KEY)).contains(block);
        assertThat(block.file()).hasBinaryContent(new byte[] {4});
        assertThat(level.used()).as("the older copy counted no more").isEqualTo(1);
        assertThat(filesOfTheDataset()).hasSize(2);
    }

    @Test
    void aCommitThatCannotInstallAbortsTheWrite() throws IOException {
        BlockWriter writer = store.reserve(KEY, 100).orElseThrow();
        writer.write(new byte[] {1, 2, 3}, 0, 3);
        Path file = level.dirFor(KEY).blockFile(KEY);
        Files.createDirectories(file.resolve("in-the-way"));  // a rename cannot replace a non-empty directory

        assertThatThrownBy(() -> writer.commit("train/a.jpg", "e1")).isInstanceOf(IOException.class);

        assertThat(writer.temp()).doesNotExist();
        assertThat(BlockFiles.sidecarOf(file)).doesNotExist();
        assertThat(level.used()).isZero();
        assertThat(store.holds(KEY)).isFalse();
        writer.close();
        assertThat(level.used()).as("not given back twice").isZero();
    }
}
