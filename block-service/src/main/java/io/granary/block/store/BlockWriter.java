package io.granary.block.store;

import io.granary.kit.blockfile.BlockFileWriter;
import io.granary.kit.blockfile.BlockFiles;
import io.granary.kit.blockfile.Sidecar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;

/**
 * One block being written into the store, the protocol every write follows (a fill, a write-through, a move to
 * another level): room reserved in a level before a byte is written, so no level passes its quota
 * ({@link BlockStore#reserve}); the bytes written under a temporary name, their length and CRC32C counted as they
 * go; then committed, installed in the block-file format ({@link BlockFileWriter}) and indexed, or aborted, the
 * temporary file deleted and the room given back. Exactly one of {@link #commit} and {@link #abort} ends it;
 * {@link #close} aborts a write that was not committed. One thread writes at a time.
 */
public final class BlockWriter implements AutoCloseable {

    private final BlockStore store;
    private final Reservation reservation;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final CRC32C crc = new CRC32C();
    private long length;
    /** The temporary file while {@link #write} writes it, opened on the first write. */
    private FileChannel out;

    BlockWriter(BlockStore store, Reservation reservation) {
        this.store = store;
        this.reservation = reservation;
    }

    public BlockKey key() {
        return reservation.key();
    }

    /** The level directory the block is written in. */
    public LevelDir dir() {
        return reservation.dir();
    }

    /** Where the bytes go, for a caller that writes them itself and counts them with {@link #wrote}. */
    public Path temp() {
        return reservation.temp();
    }

    /** The most bytes the block may have: the room reserved. */
    public long room() {
        return reservation.bytes();
    }

    /** The bytes written so far. */
    public long length() {
        return length;
    }

    /** The CRC32C of the bytes written so far: what the block is installed with. */
    public int crc32c() {
        return (int) crc.getValue();
    }

    /** Whether {@code bytes} more fit in the room reserved. */
    public boolean fits(long bytes) {
        return length + bytes <= reservation.bytes();
    }

    /**
     * Writes {@code n} bytes at the end of the block, counted and checksummed.
     *
     * @throws IOException              when the level's disk fails
     * @throws IllegalArgumentException when they do not {@link #fits fit}
     */
    public void write(byte[] bytes, int offset, int n) throws IOException {
        requireRoom(n);
        if (out == null) {
            out = FileChannel.open(reservation.temp(), StandardOpenOption.WRITE);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, n);
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
        crc.update(bytes, offset, n);
        length += n;
    }

    /** Counts and checksums bytes the caller wrote to {@link #temp()} itself, in order. */
    public void wrote(ByteBuffer bytes) {
        requireRoom(bytes.remaining());
        length += bytes.remaining();
        crc.update(bytes);
    }

    /** Drops what was written: the block is written again from its first byte (a hand-over that broke off). */
    public void restart() throws IOException {
        if (out != null) {
            out.truncate(0);
        }
        crc.reset();
        length = 0;
    }

    /**
     * Makes the written bytes the block: an older copy of it dropped, the file installed with its sidecar, indexed.
     * When the install fails the write is aborted.
     */
    public StoredBlock commit(String path, String etag) throws IOException {
        end();
        store.remove(key());  // wherever the older copy is, this one may take its name
        StoredBlock block = install(path, etag, (int) crc.getValue());
        store.admit(block);
        return block;
    }

    /** The temporary file deleted, the room given back; nothing once the write was committed or aborted. */
    public void abort() {
        if (ended.compareAndSet(false, true)) {
            try {
                closeOut();
            } catch (IOException e) {
                // its bytes are thrown away
            }
            discard();
        }
    }

    @Override
    public void close() {
        abort();
    }

    /**
     * A block of another level copied here, its checksum known, and installed: not indexed, the caller moves the
     * index to it. When the copy or the install fails the write is aborted. Only a file sealed before and after the
     * copy is copied so: a write to it moves its modification time before it changes a byte, and a copy installed
     * with the checksum of bytes it does not have would be served as whole.
     */
    StoredBlock copy(StoredBlock block) throws IOException {
        end();
        try {
            if (!BlockFiles.sealed(block.file())) {
                throw new IOException("its file was written to since it was installed");
            }
            Files.copy(block.file(), reservation.temp(), StandardCopyOption.REPLACE_EXISTING);
            if (!BlockFiles.sealed(block.file())) {
                throw new IOException("its file was written to while it was copied");
            }
        } catch (IOException e) {
            discard();
            throw e;
        }
        length = block.length();
        return install(block.path(), block.etag(), block.crc32c());
    }

    /** The file installed in its level directory, counted there instead of the room reserved for it. */
    private StoredBlock install(String path, String etag, int crc32c) throws IOException {
        StoredBlock block = new StoredBlock(key(), path, etag, length, crc32c, dir());
        try {
            BlockFileWriter.install(reservation.temp(), block.file(), new Sidecar(crc32c, length, path, etag));
        } catch (IOException | RuntimeException e) {
            discard();
            throw e;
        }
        dir().add(length);
        dir().level().release(reservation.bytes());
        return block;
    }

    /** Ends the writing: no byte more, and no second end. */
    private void end() throws IOException {
        if (!ended.compareAndSet(false, true)) {
            throw new IllegalStateException("the write of block " + key() + " was ended already");
        }
        try {
            closeOut();
        } catch (IOException e) {
            discard();
            throw e;
        }
    }

    private void closeOut() throws IOException {
        if (out != null) {
            out.close();
        }
    }

    private void discard() {
        BlockFileWriter.deleteQuietly(reservation.temp());
        dir().level().release(reservation.bytes());
    }

    private void requireRoom(long bytes) {
        if (!fits(bytes)) {
            throw new IllegalArgumentException("block " + key() + " has more than the " + reservation.bytes()
                    + " bytes reserved");
        }
    }
}
