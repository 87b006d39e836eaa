package io.granary.block.store;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The worker's reads as a trace for the simulator ({@code granary.block.read-trace}): every read the store counts,
 * held or not (a GET, a HEAD's fill, a reported short-circuit read), appended as {@code <dataset> <blockId>}, the
 * format {@code simulator}'s {@code RecordedTrace} reads. A listener around the worker's own, so recording costs
 * nothing when it is off. Buffered: what a killed worker had not flushed is lost.
 */
public final class ReadTrace implements BlockListener, AutoCloseable {

    /** Lines between flushes: a trace being read while it grows is at most this far behind. */
    private static final int FLUSH_EVERY = 1_000;

    private final BlockListener next;
    private final BufferedWriter out;
    private int unflushed;

    public ReadTrace(Path file, BlockListener next) {
        this.next = next;
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the read trace " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void read(BlockKey key) {
        try {
            out.write(key.dataset());
            out.write(' ');
            out.write(key.id().toString());
            out.newLine();
            if (++unflushed >= FLUSH_EVERY) {
                out.flush();
                unflushed = 0;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the read trace: " + e.getMessage(), e);
        }
        next.read(key);
    }

    @Override
    public void cached(StoredBlock block) {
        next.cached(block);
    }

    @Override
    public void evicted(StoredBlock block) {
        next.evicted(block);
    }

    @Override
    public void corrupt(StoredBlock block) {
        next.corrupt(block);
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
