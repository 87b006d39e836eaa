package io.granary.simulator;

import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
import io.granary.block.store.ClockPolicy;
import io.granary.block.store.LruPolicy;
import io.granary.block.store.TinyLfuAdmission;
import io.granary.simulator.policy.CaffeineModel;
import io.granary.simulator.policy.Clairvoyant;
import io.granary.simulator.policy.StoreModel;
import io.granary.simulator.trace.RecordedTrace;
import io.granary.simulator.trace.Samplers;
import io.granary.simulator.trace.Trace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Policies on traces whose answers are known. */
class SimulatorTest {

    @TempDir
    Path dir;

    /** The same order every epoch: {@code blocks} blocks read 0, 1, ..., blocks-1, again and again. */
    private static Trace cyclic(int blocks, int epochs) {
        BlockKey[] keys = Samplers.dataset("ds", blocks, 1);
        int[] reads = IntStream.range(0, blocks * epochs).map(i -> i % blocks).toArray();
        int[] starts = IntStream.range(0, epochs).map(epoch -> epoch * blocks).toArray();
        return new Trace("cyclic", keys, reads, starts);
    }

    private static StoreModel lru(Trace trace, int capacity) {
        return new StoreModel(trace.keys(), capacity, 1.0, 1.0, new LruPolicy(), Admission.ALWAYS);
    }

    @Test
    void aLoopLargerThanTheCacheDefeatsLruAndTheBestKeepsCapacityOfIt() {
        Trace trace = cyclic(1_000, 4);

        assertThat(Replay.steady(Replay.hitRatios(trace, lru(trace, 500)))).as("LRU: each block gone before its turn")
                .isZero();
        assertThat(Replay.steady(Replay.hitRatios(trace, new Clairvoyant(trace, 500))))
                .as("a slot holds one block for a whole loop for one hit: at most capacity hits a loop")
                .isCloseTo(0.5, within(0.002));
        assertThat(Replay.steady(Replay.hitRatios(trace, new StoreModel(trace.keys(), 500, 0.95, 0.7,
                new ClockPolicy(), Admission.KEEP)))).isEqualTo(0.5);
    }

    @Test
    void keepingWhatFilledTheCacheHitsCacheOverDatasetInEveryShuffledEpoch() {
        Trace trace = Samplers.randomSampler(2_000, 1, 6, 3);
        double[] keep = Replay.hitRatios(trace, new StoreModel(trace.keys(), 500, 0.95, 0.7, new ClockPolicy(),
                Admission.KEEP));

        assertThat(keep[0]).isZero();
        for (int epoch = 1; epoch < keep.length; epoch++) {
            assertThat(keep[epoch]).as("epoch %d", epoch + 1).isEqualTo(0.25);
        }
        assertThat(Replay.steady(Replay.hitRatios(trace, new Clairvoyant(trace, 500))))
                .as("nothing beats it, and nothing can do worse than keeping").isGreaterThanOrEqualTo(0.25);
    }

    /**
     * Another dataset read hot and then freed leaves its counts in the sketch (a free drops blocks, not counts), so
     * the sketch's halving can fall anywhere in the next dataset's first epoch. Wherever it falls, the second epoch
     * keeps what filled the cache; with a margin of one, a halving there trades held blocks for ones it already read.
     */
    @Test
    void aSketchHalvedInTheFirstEpochTradesNoHeldBlocksInTheSecond() {
        double worstWithMargin1 = 1;
        for (int rounds = 0; rounds <= 16; rounds++) {
            double[] hits = afterHotReads(TinyLfuAdmission.MARGIN, rounds);
            assertThat(hits[1]).as("epoch 2 after %d reads of each hot block", rounds).isGreaterThanOrEqualTo(0.49);
            assertThat(hits[2]).as("epoch 3 after %d reads of each hot block", rounds).isGreaterThanOrEqualTo(0.49);
            worstWithMargin1 = Math.min(worstWithMargin1, afterHotReads(1, rounds)[1]);
        }
        assertThat(worstWithMargin1).as("a margin of one, its worst second epoch").isLessThan(0.46);
    }

    /** A job's three shuffled epochs' hit ratios after the sketch counted {@code rounds} reads of 600 other blocks. */
    private static double[] afterHotReads(int margin, int rounds) {
        Trace trace = Samplers.randomSampler(2_000, 1, 3, 5);
        Admission admission = Policies.tinyLfu(1_000, margin, Long.MAX_VALUE);
        BlockKey[] hot = Samplers.dataset("hot", 600, 1);
        for (int round = 0; round < rounds; round++) {
            for (BlockKey key : hot) {
                admission.recorded(key);
            }
        }
        return Replay.hitRatios(trace, new StoreModel(trace.keys(), 1_000, Policies.HIGH, Policies.LOW,
                new ClockPolicy(), admission));
    }

    @Test
    void aJobJoiningAFullCacheGetsItsShareAndNothingWithout() {
        Trace trace = Samplers.twoDatasets(1_000, 1, 4, 7, 11);
        for (double share : new double[] {0, 0.5}) {
            StoreModel store = new StoreModel(trace.keys(), 500, Policies.HIGH, Policies.LOW, new ClockPolicy(),
                    Policies.tinyLfu(500, 1, trace.blocks()), dataset -> share);
            int[] hits = new int[2];
            int lastEpoch = trace.epochStarts()[trace.epochs() - 1];
            for (int i = 0; i < trace.reads().length; i++) {
                int key = trace.reads()[i];
                if (store.read(key, i) && i >= lastEpoch) {
                    hits[trace.keys()[key].dataset().equals("first") ? 0 : 1]++;
                }
            }

            // The last epoch, 1,000 reads of each dataset, the cache at 500 blocks: kept as it filled (but the few
            // blocks the sketch's collisions let in), or shared.
            if (share == 0) {
                assertThat(hits[1]).as("the second job's hits without shares").isLessThanOrEqualTo(50);
                assertThat(hits[0]).as("the first job's").isGreaterThanOrEqualTo(450);
            } else {
                assertThat(hits[0]).as("the first job's hits with a share of 1/2: 250 blocks each").isBetween(240, 250);
                assertThat(hits[1]).as("the second job's").isBetween(240, 250);
            }
        }
    }

    @Test
    void aDatasetThatFitsIsAllHitsAfterItsFirstEpochWhateverThePolicy() {
        Trace trace = Samplers.randomSampler(300, 2, 3, 5);
        for (Policies.Named policy : Policies.all()) {
            double[] hits = Replay.hitRatios(trace, policy.make().apply(trace, 700));
            assertThat(hits[0]).as(policy.name()).isZero();
            assertThat(hits[1]).as(policy.name()).isEqualTo(1.0);
            assertThat(hits[2]).as(policy.name()).isEqualTo(1.0);
        }
    }

    @Test
    void lruEvictsTheLeastRecentlyReadAndBringsTheLevelToItsLowWatermark() {
        BlockKey[] keys = Samplers.dataset("ds", 10, 1);
        // 0..3 fill a level of 4; 0 read again; then 4 comes: the level is brought down to its low watermark (2).
        Trace trace = new Trace("small", keys, new int[] {0, 1, 2, 3, 0, 4, 0, 1, 2, 3}, new int[] {0});
        StoreModel model = new StoreModel(keys, 4, 1.0, 0.5, new LruPolicy(), Admission.ALWAYS);

        boolean[] hits = new boolean[trace.reads().length];
        for (int i = 0; i < hits.length; i++) {
            hits[i] = model.read(trace.reads()[i], i);
        }

        // 4 finds the level full: 1 and 2, the least recently read, go (down to the low watermark, 2 blocks), and 3,
        // 0 and 4 are held; 0 hits; 1 comes back, and 2 finds the level full again.
        assertThat(hits).containsExactly(false, false, false, false, true, false, true, false, false, false);
    }

    @Test
    void caffeineIsTheReferenceItClaimsToBe() {
        Trace trace = cyclic(100, 3);
        assertThat(Replay.hitRatios(trace, new CaffeineModel(200))).containsExactly(0, 1, 1);
    }

    @Test
    void aRecordedTraceIsReadWithItsEpochsAndABadLineIsNamed() throws IOException {
        Path file = dir.resolve("trace.txt");
        String a = "0123456789abcdef0123456789abcdef-0";
        String b = "0123456789abcdef0123456789abcdef-1";
        Files.writeString(file, "# recorded by node-1\nds " + a + "\nds " + b + "\nepoch\nds " + a + "\n\nds " + b
                + "\n");

        Trace trace = RecordedTrace.read(file);

        assertThat(trace.blocks()).isEqualTo(2);
        assertThat(trace.reads()).containsExactly(0, 1, 0, 1);
        assertThat(trace.epochStarts()).containsExactly(0, 2);
        assertThat(Replay.hitRatios(trace, lru(trace, 2))).containsExactly(0, 1);

        Files.writeString(file, "ds " + a + "\nds not-a-block\n");
        assertThatThrownBy(() -> RecordedTrace.read(file)).hasMessageContaining("line 2");
    }

    @Test
    void theReportHasARowPerPolicyForEveryTrace() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Simulator.report(List.of(Samplers.randomSampler(400, 1, 3, 1), Samplers.twoJobs(200, 2, 3, 1, 2)),
                new PrintStream(out, true, StandardCharsets.UTF_8));

        String report = out.toString(StandardCharsets.UTF_8);
        for (Policies.Named policy : Policies.all()) {
            assertThat(report.split("\\| " + java.util.regex.Pattern.quote(policy.name()) + " \\|", -1))
                    .as(policy.name()).hasSize(4);  // two trace tables and the epoch table
        }
        assertThat(report).contains("| policy | 0.02 | 0.1 | 0.25 | 0.5 | 0.75 | 0.9 | 1.1 |");
    }
}
