package io.granary.metadata.store;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;

/**
 * Key-value pairs handed back in key order however many there are, in bounded memory: sorted runs of at most
 * {@code runSize} pairs are spilled to files and merged when read (an external merge sort). The file index is
 * built this way from the replicated cache, which hands its entries out in hash order: inserted in that order, the
 * index's B-tree would rewrite a page for nearly every entry.
 */
final class SortedRuns implements AutoCloseable {

    private static final Comparator<Map.Entry<String, String>> BY_KEY = Map.Entry.comparingByKey();

    private final Path dir;
    private final int runSize;
    private final List<Map.Entry<String, String>> buffer = new ArrayList<>();
    private final List<Path> runs = new ArrayList<>();

    SortedRuns(Path dir, int runSize) {
        this.dir = dir;
        this.runSize = runSize;
    }

    void add(String key, String value) {
        buffer.add(Map.entry(key, value));
        if (buffer.size() == runSize) {
            spill();
        }
    }

    /** Every pair added, in key order. */
    void forEachSorted(BiConsumer<String, String> consumer) {
        buffer.sort(BY_KEY);
        if (runs.isEmpty()) {
            buffer.forEach(entry -> consumer.accept(entry.getKey(), entry.getValue()));
            return;
        }
        spill();
        PriorityQueue<Run> heads = new PriorityQueue<>(Comparator.comparing(Run::key));
        try {
            for (Path path : runs) {
                Run run = new Run(new DataInputStream(new BufferedInputStream(Files.newInputStream(path))));
                if (run.next()) {
                    heads.add(run);
                } else {
                    run.close();
                }
            }
            while (!heads.isEmpty()) {
                Run run = heads.poll();
                try {
                    consumer.accept(run.key(), run.value());
                } catch (RuntimeException e) {
                    run.close();
                    throw e;
                }
                if (run.next()) {
                    heads.add(run);
                } else {
                    run.close();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            heads.forEach(Run::close);
        }
    }

    @Override
    public void close() {
        for (Path run : runs) {
            try {
                Files.deleteIfExists(run);
            } catch (IOException e) {
                // a leftover run in the index's directory is overwritten by the next build
            }
        }
    }

    private void spill() {
        if (buffer.isEmpty()) {
            return;
        }
        buffer.sort(BY_KEY);
        Path path = dir.resolve("run-" + runs.size());
        try {
            Files.createDirectories(dir);
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(path)))) {
                for (Map.Entry<String, String> entry : buffer) {
                    write(out, entry.getKey());
                    write(out, entry.getValue());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        runs.add(path);
        buffer.clear();
    }

    private static void write(DataOutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** One spilled run, read a pair at a time. */
    private static final class Run {

        private final DataInputStream in;
        private String key;
        private String value;

        Run(DataInputStream in) {
            this.in = in;
        }

        boolean next() throws IOException {
            try {
                key = read();
            } catch (EOFException end) {
                return false;
            }
            value = read();
            return true;
        }

        String key() {
            return key;
        }

        String value() {
            return value;
        }

        private String read() throws IOException {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        void close() {
            try {
                in.close();
            } catch (IOException e) {
                // read to its end already
            }
        }
    }
}
