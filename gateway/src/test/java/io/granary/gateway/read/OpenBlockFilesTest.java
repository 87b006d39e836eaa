package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Block files kept open between reads, on real files laid out and replaced as the block-service does it (written
 * under a temporary name, then renamed), counting this process's real file descriptors.
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
        return Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static byte[] read(OpenBlockFile file) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) file.size());
        while (buffer.hasRemaining() && file.channel().read(buffer, buffer.position()) > 0) {
            // positional reads, as sendfile does: the file is shared by every read of it
        }
        file.release();
        return buffer.array();
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

    @Test
    void aWarmReadReusesTheOpenFile() throws IOException {
        files = new OpenBlockFiles(8);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});

        OpenBlockFile first = files.open(block).orElseThrow();
        OpenBlockFile second = files.open(block).orElseThrow();

        assertThat(second).isSameAs(first);
        assertThat(read(first)).containsExactly(1, 2, 3);
        assertThat(read(second)).containsExactly(1, 2, 3);
        assertThat(openDescriptors()).isEqualTo(1);
    }

    @Test
    void anEvictedBlockIsNotServedFromAnOpenFile() throws IOException {
        files = new OpenBlockFiles(8);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        read(files.open(block).orElseThrow());

        Files.delete(block);  // the worker evicts it, or the dataset's cache is freed

        assertThat(files.open(block)).isEmpty();
        assertThat(files.size()).isZero();
        assertThat(openDescriptors()).as("closed when found gone").isZero();
    }

    @Test
    void aBlockWrittenAnewUnderItsNameIsOpenedAfresh() throws IOException {
        files = new OpenBlockFiles(8);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        OpenBlockFile before = files.open(block).orElseThrow();
        read(before);

        // Evicted and filled again while the file stayed open here: another inode under the same name.
        block("train/0001.JPEG", "e1", new byte[] {4, 5, 6, 7});
        OpenBlockFile after = files.open(block).orElseThrow();

        assertThat(after).isNotSameAs(before);
        assertThat(before.channel().isOpen()).as("the old file closed once no read holds it").isFalse();
        assertThat(read(after)).containsExactly(4, 5, 6, 7);
    }

    @Test
    void aNewVersionOfAnObjectIsNeverServedFromTheOldVersionsFile() throws IOException {
        files = new OpenBlockFiles(8);
        Path old = block("train/0001.JPEG", "e1", new byte[] {1, 2, 3});
        read(files.open(old).orElseThrow());

        Path replaced = BlockApi.blockFile(level.toString(), DATASET,
                BlockId.of(DATASET, "train/0001.JPEG", "e2", 0).toString());

        assertThat(replaced).as("a block is named by its object's etag").isNotEqualTo(old);
        assertThat(files.open(replaced)).as("not cached yet: read another way").isEmpty();
        Path filled = block("train/0001.JPEG", "e2", new byte[] {9, 9});
        assertThat(read(files.open(filled).orElseThrow())).containsExactly(9, 9);
    }

    @Test
    void aFileDroppedFromTheCacheWhileBeingSentStaysOpenUntilTheSendIsDone() throws IOException {
        files = new OpenBlockFiles(1);
        OpenBlockFile sending = files.open(block("a", "e1", new byte[] {1})).orElseThrow();

        read(files.open(block("b", "e1", new byte[] {2})).orElseThrow());  // pushes "a" out of the cache

        assertThat(files.size()).isEqualTo(1);
        assertThat(sending.channel().isOpen()).isTrue();
        assertThat(read(sending)).containsExactly(1);
        assertThat(sending.channel().isOpen()).isFalse();
    }

    @Test
    void theOpenFileLimitHoldsOverTenThousandDistinctFiles() throws IOException {
        int limit = 100;
        files = new OpenBlockFiles(limit);
        long most = 0;
        for (int i = 0; i < 10_000; i++) {
            Path block = block("train/%05d.JPEG".formatted(i), "e1", new byte[] {(byte) i});
            assertThat(read(files.open(block).orElseThrow())).containsExactly((byte) i);
            if (i % 250 == 0 || i >= 9_990) {
                most = Math.max(most, openDescriptors());
            }
        }

        assertThat(files.size()).isEqualTo(limit);
        assertThat(most).isLessThanOrEqualTo(limit);
        assertThat(openDescriptors()).isEqualTo(limit);
        files.close();
        assertThat(openDescriptors()).isZero();
    }

    @Test
    void noLimitOpensAndClosesAFilePerRead() throws IOException {
        files = new OpenBlockFiles(0);
        Path block = block("train/0001.JPEG", "e1", new byte[] {1});

        assertThat(read(files.open(block).orElseThrow())).containsExactly(1);

        assertThat(files.size()).isZero();
        assertThat(openDescriptors()).isZero();
    }
}
