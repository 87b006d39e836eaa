package io.granary.metadata.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class SortedRunsTest {

    @TempDir
    Path dir;

    @Test
    void pairsComeBackInKeyOrderAcrossSpilledRunsAndTheRunsAreDeleted() throws Exception {
        List<String> keys = new ArrayList<>(IntStream.range(0, 1000).mapToObj("k-%04d"::formatted).toList());
        Collections.shuffle(keys, new Random(7));
        List<String> seen = new ArrayList<>();
        try (SortedRuns runs = new SortedRuns(dir.resolve("build"), 64)) {
            keys.forEach(key -> runs.add(key, "value of " + key + " é"));
            assertThat(Files.list(dir.resolve("build")).count()).as("spilled").isEqualTo(1000 / 64);
            runs.forEachSorted((key, value) -> {
                assertThat(value).isEqualTo("value of " + key + " é");
                seen.add(key);
            });
        }
        assertThat(seen).isSorted().hasSize(1000).doesNotHaveDuplicates();
        assertThat(Files.list(dir.resolve("build"))).isEmpty();
    }

    @Test
    void fewerPairsThanARunNeverTouchTheDisk() {
        List<String> seen = new ArrayList<>();
        try (SortedRuns runs = new SortedRuns(dir.resolve("build"), 64)) {
            runs.add("b", "2");
            runs.add("a", "1");
            runs.forEachSorted((key, value) -> seen.add(key + value));
        }
        assertThat(seen).containsExactly("a1", "b2");
        assertThat(dir.resolve("build")).doesNotExist();
    }
}
