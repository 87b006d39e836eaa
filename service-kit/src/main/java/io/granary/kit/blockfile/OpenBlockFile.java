package io.granary.kit.blockfile;

import io.netty.util.internal.PlatformDependent;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block file held open to be read or sent from. Counted: {@link BlockFileReader} holds one reference while it
 * keeps it, each read one more; the file is closed when the last is released, so a file dropped from the reader's
 * cache while a send is under way stays open until the send is done. A big file in memory (tmpfs) may also be
 * mapped, for as long as it is open. The channel is shared by every read of the file: read it at a position, never
 * by moving its own.
 */
public final class OpenBlockFile {

    private final Path path;
    private final FileChannel channel;
    private final Object fileKey;
    private final long size;
    /** The whole file mapped read-only, or null: unmapped with the last reference, never while a send uses it. */
    private final ByteBuffer mapped;
    private final AtomicInteger references = new AtomicInteger(1);

    OpenBlockFile(Path path, FileChannel channel, Object fileKey, long size, ByteBuffer mapped) {
        this.path = path;
        this.channel = channel;
        this.fileKey = fileKey;
        this.size = size;
        this.mapped = mapped;
    }

    public Path path() {
        return path;
    }

    public FileChannel channel() {
        return channel;
    }

    /** What identifies the file on its file system (device and inode): a file written anew under the name differs. */
    Object fileKey() {
        return fileKey;
    }

    public long size() {
        return size;
    }

    /** {@code length} bytes from {@code offset} of the mapped file, valid until this reference is released. */
    public ByteBuffer mapped(long offset, long length) {
        return mapped.slice((int) offset, (int) length);
    }

    public boolean isMapped() {
        return mapped != null;
    }

    /**
     * Reads {@code length} bytes of the file from {@code offset} into {@code dst} at its position, and moves the
     * position past them.
     *
     * @throws EOFException when the file ends before them
     */
    public void read(long offset, int length, ByteBuffer dst) throws IOException {
        ByteBuffer window = dst.slice(dst.position(), length);
        long read = 0;
        while (window.hasRemaining()) {
            int n = channel.read(window, offset + read);
            if (n < 0) {
                throw new EOFException("block file " + path + " ended after " + (offset + read) + " bytes, not "
                        + (offset + length));
            }
            read += n;
        }
        dst.position(dst.position() + length);
    }

    /**
     * Whether the file's seal still holds, asked after its bytes were read or sent and before the reader counts
     * them good: a write to a block file moves its modification time before it changes a byte, so bytes read
     * before this answers true are the block's. One {@code stat}; a file no longer under its name (evicted, moved)
     * answers true, as only a write breaks a file's bytes.
     */
    public boolean unchanged() {
        return path.toFile().lastModified() == BlockFiles.SEALED.toMillis();  // 0 too when the name is gone
    }

    /** One more reference; false when the file was closed already (the caller opens it again). */
    boolean retain() {
        for (int now = references.get(); now > 0; now = references.get()) {
            if (references.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    public void release() {
        if (references.decrementAndGet() == 0) {
            if (mapped != null) {
                PlatformDependent.freeDirectBuffer(mapped);  // unmaps now rather than at some later GC
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // opened for reading: nothing is lost
            }
        }
    }
}
