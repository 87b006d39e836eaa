package io.granary.block.fill;

import io.granary.block.store.StoredBlock;
import io.granary.contracts.worker.Medium;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A block being filled, which readers follow as its bytes are written rather than waiting for the whole block (a
 * tee: the under-store's bytes go to the block's temporary file and every reader reads them from there). It says
 * how many bytes are written so far, gives a reader a hold on them ({@link #hold}), and ends stored (the block),
 * not stored (no level had room: the reader reads it through) or failed. One per block at a time, however many
 * readers ({@link BlockFiller}'s single flight). Readers are woken ({@link #watch}) on each write and at the end,
 * on the filling thread: a watcher only schedules its work.
 */
public final class Filling {

    private final CompletableFuture<Optional<StoredBlock>> ended = new CompletableFuture<>();
    private final List<Runnable> watchers = new CopyOnWriteArrayList<>();
    private volatile long written;
    private volatile Medium medium;
    private volatile long length = -1;
    /** The level's disk failed a write, so it ended unstored: another level may take the block. */
    private volatile boolean diskFailed;
    /** The temporary file while the filler writes it; null before and after. */
    private Path temp;
    /** The temporary file opened for readers, shared; closed when the last hold is released. */
    private FileChannel readable;
    private int holds;

    /** The bytes of the block written so far, from its first: what a reader may send. */
    public long written() {
        return written;
    }

    /** The level the block is written to; null until a level took it. */
    public Medium medium() {
        return medium;
    }

    /** The block's length, when the reader that started the fill named the file's size; -1: not known till the end. */
    public long length() {
        return length;
    }

    /** The name of the temporary file the block is written in, for a reader on this node; null when none is. */
    public synchronized String tempName() {
        return temp == null ? null : temp.getFileName().toString();
    }

    /** Whether it ended unstored because the level's disk failed a write (not for want of room in the cache). */
    public boolean diskFailed() {
        return diskFailed;
    }

    void diskFailed(boolean failed) {
        diskFailed = failed;
    }

    public boolean isEnded() {
        return ended.isDone();
    }

    /** How it ended: the block stored, or empty when no level could store it. Throws what the fill failed with. */
    public Optional<StoredBlock> outcome() {
        try {
            return ended.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** Waits for the end, as a reader does that needs the whole block. */
    Optional<StoredBlock> await() {
        return outcome();
    }

    /**
     * A reader's hold on the written bytes, a channel for positional reads that stays readable after the block is
     * installed or evicted (or the fill fails): released with {@link #release}. Empty when nothing is being written
     * now (not yet, or no more: the reader takes the {@link #outcome}).
     */
    public synchronized Optional<FileChannel> hold() throws IOException {
        if (temp == null) {
            return Optional.empty();
        }
        if (readable == null) {
            try {
                readable = FileChannel.open(temp, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return Optional.empty();  // installed or thrown away this moment: the end follows
            }
        }
        holds++;
        return Optional.of(readable);
    }

    public synchronized void release() {
        if (--holds == 0 && readable != null) {
            try {
                readable.close();
            } catch (IOException e) {
                // read-only: nothing is lost
            }
            readable = null;
        }
    }

    /** Wakes {@code watcher} on every write and at the end (on the filling thread): it must only schedule work. */
    public void watch(Runnable watcher) {
        watchers.add(watcher);
        if (isEnded()) {
            watcher.run();  // it may have missed the end
        }
    }

    public void unwatch(Runnable watcher) {
        watchers.remove(watcher);
    }

    synchronized void writing(Path temp, Medium medium, long length) {
        this.temp = temp;
        this.medium = medium;
        this.length = length;
    }

    void wrote(long length) {
        written = length;
        wake();
    }

    /** The bytes so far are dropped (a hand-over that broke off): they are written again, the same bytes. */
    void restarted() {
        written = 0;
    }

    void end(Optional<StoredBlock> block) {
        stopWriting();
        ended.complete(block);
        wake();
    }

    void fail(Throwable failure) {
        stopWriting();
        ended.completeExceptionally(failure);
        wake();
    }

    private synchronized void stopWriting() {
        temp = null;
    }

    private void wake() {
        for (Runnable watcher : watchers) {
            watcher.run();
        }
    }
}
