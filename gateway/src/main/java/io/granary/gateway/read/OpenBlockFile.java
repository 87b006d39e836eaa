package io.granary.gateway.read;

import io.netty.util.internal.PlatformDependent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A block file held open to be sent from. Counted: {@link OpenBlockFiles} holds one reference while it keeps it,
 * each send one more; the file is closed when the last is released, so a file dropped from the cache while a send
 * is under way stays open until the send is done. A file in memory (tmpfs) is also mapped, for as long as it is
 * open: see {@link ZeroCopy}.
 */
final class OpenBlockFile {

    private final FileChannel channel;
    private final Object fileKey;
    private final long size;
    /** The whole file mapped read-only, or null: unmapped with the last reference, never while a send uses it. */
    private final ByteBuffer mapped;
    private final AtomicInteger references = new AtomicInteger(1);

    OpenBlockFile(FileChannel channel, Object fileKey, long size, ByteBuffer mapped) {
        this.channel = channel;
        this.fileKey = fileKey;
        this.size = size;
        this.mapped = mapped;
    }

    FileChannel channel() {
        return channel;
    }

    /** What identifies the file on its file system (device and inode): a file written anew under the name differs. */
    Object fileKey() {
        return fileKey;
    }

    long size() {
        return size;
    }

    /** {@code length} bytes from {@code offset} of the mapped file, valid until this reference is released. */
    ByteBuffer mapped(long offset, long length) {
        return mapped.slice((int) offset, (int) length);
    }

    boolean isMapped() {
        return mapped != null;
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

    void release() {
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
