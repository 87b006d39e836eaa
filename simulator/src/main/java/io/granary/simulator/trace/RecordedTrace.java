package io.granary.simulator.trace;

import io.granary.block.store.BlockKey;
import io.granary.contracts.block.BlockId;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A trace read from a file, as a worker records one ({@code granary.block.read-trace}): a read per line,
 * {@code <dataset> <blockId>}; a line {@code epoch} begins the next epoch (none: the whole file is one); blank lines
 * and lines from {@code #} are left out.
 */
public final class RecordedTrace {

    private RecordedTrace() {
    }

    /** @throws IllegalArgumentException naming the line that is not a read */
    public static Trace read(Path file) throws IOException {
        Map<BlockKey, Integer> index = new HashMap<>();
        List<BlockKey> keys = new ArrayList<>();
        List<Integer> reads = new ArrayList<>();
        List<Integer> epochStarts = new ArrayList<>(List.of(0));
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                number++;
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                if (line.equals("epoch")) {
                    if (!reads.isEmpty() && epochStarts.get(epochStarts.size() - 1) != reads.size()) {
                        epochStarts.add(reads.size());
                    }
                    continue;
                }
                String[] fields = line.split("\\s+");
                if (fields.length != 2) {
                    throw new IllegalArgumentException(file + " line " + number + ": not '<dataset> <blockId>'");
                }
                BlockKey key;
                try {
                    key = new BlockKey(fields[0], BlockId.parse(fields[1]));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + " line " + number + ": " + e.getMessage());
                }
                reads.add(index.computeIfAbsent(key, k -> {
                    keys.add(k);
                    return keys.size() - 1;
                }));
            }
        }
        return new Trace("recorded: " + file.getFileName(), keys.toArray(BlockKey[]::new),
                reads.stream().mapToInt(Integer::intValue).toArray(),
                epochStarts.stream().mapToInt(Integer::intValue).toArray());
    }
}
