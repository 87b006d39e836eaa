package io.granary.fuse.read;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.worker.Tier;
import io.granary.contracts.worker.Worker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Block files of the workers on this node, read directly (a short-circuit read, as HDFS and Alluxio have it): the
 * block-service's file contract is {@code <level dir>/<dataset>/<blockId>}, and a visible block file is always
 * whole, and sealed ({@link BlockApi#SEALED}) unless it was written to since. Open channels are kept for a while,
 * by name and inode: a block read by many requests is opened once. A channel stays valid after its file is evicted
 * or moved to another level (the inode lives while it is open, and a block's bytes never change); a block filled
 * again under the same name (a damaged one the worker dropped) is another inode, opened afresh.
 */
final class LocalBlockFiles {

    private final String node;
    private final Cache<LocalFile, FileChannel> open = Caffeine.newBuilder().maximumSize(4_096)
            .<LocalFile, FileChannel>removalListener((file, channel, cause) -> closeQuietly(channel)).build();

    /** A block file as one stat saw it: its name and its inode. */
    record LocalFile(Path path, Object inode) {
    }

    LocalBlockFiles(String node) {
        this.node = node;
    }

    /** Whether the worker's files are on this node. */
    boolean reaches(Worker owner) {
        return node.equals(owner.node());
    }

    /** The block's file, as its worker installed it, in the first level of the owner that has it. */
    Optional<LocalFile> find(Worker owner, String dataset, String blockId) {
        for (Tier tier : owner.tiers()) {
            Path file = BlockApi.blockFile(tier.path(), dataset, blockId);
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (IOException e) {
                continue;  // not in this level
            }
            if (attributes.isRegularFile() && BlockApi.sealed(attributes)) {  // unsealed: written to, the worker checks it
                return Optional.of(new LocalFile(file, attributes.fileKey()));
            }
        }
        return Optional.empty();
    }

    /**
     * Reads {@code length} bytes at {@code offsetInBlock} of the block file into {@code dst}.
     *
     * @return false when the file went away before it could be opened (evicted): the caller reads elsewhere
     */
    boolean read(LocalFile file, long offsetInBlock, int length, ByteBuffer dst) throws IOException {
        FileChannel channel;
        try {
            channel = open.get(file, found -> {
                try {
                    return FileChannel.open(found.path());
                } catch (IOException e) {
                    throw new UncheckedOpen(e);
                }
            });
        } catch (UncheckedOpen e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return false;
            }
            throw e.getCause();
        }
        ByteBuffer window = dst.slice(dst.position(), length);
        long read = 0;
        while (window.hasRemaining()) {
            int n = channel.read(window, offsetInBlock + read);
            if (n < 0) {
                throw new IOException("block file " + file.path() + " ended after " + (offsetInBlock + read) + " bytes");
            }
            read += n;
        }
        dst.position(dst.position() + length);
        return true;
    }

    void close() {
        open.invalidateAll();
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException e) {
            // a read-only channel: nothing is lost
        }
    }

    private static final class UncheckedOpen extends RuntimeException {
        UncheckedOpen(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }
}
