package io.granary.simulator;

import io.granary.block.plan.WorkerPlans;
import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
import io.granary.block.store.BlockListener;
import io.granary.block.store.BlockStore;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.ClockPolicy;
import io.granary.block.store.DatasetShares;
import io.granary.block.store.EvictionPolicy;
import io.granary.block.store.LevelSpec;
import io.granary.block.store.LruPolicy;
import io.granary.block.store.ReadTrace;
import io.granary.contracts.worker.Medium;
import io.granary.simulator.policy.Clairvoyant;
import io.granary.simulator.policy.EpochPlanModel;
import io.granary.simulator.policy.StoreModel;
import io.granary.simulator.trace.RecordedTrace;
import io.granary.simulator.trace.Samplers;
import io.granary.simulator.trace.Trace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator judges the store only if it decides as the store does: the same trace through a real BlockStore
 * (block files on disk, its watermarks) and through {@link StoreModel} gives the same hits, epoch by epoch.
 */
class StoreAgreementTest {

    private static final int BLOCK = 1024;
    private static final int CAPACITY = 100;

    @TempDir
    Path dir;

    @Test
    void lruAdmittingEveryBlockHitsWhatTheStoreHits() throws IOException {
        agree("lru", LruPolicy::new, () -> Admission.ALWAYS);
    }

    @Test
    void clockWithTinyLfuAdmissionHitsWhatTheStoreHits() throws IOException {
        agree("tinylfu", ClockPolicy::new, () -> Policies.tinyLfu(CAPACITY, 1, 400));
    }

    @Test
    void keepingWhatFilledTheCacheHitsWhatTheStoreHits() throws IOException {
        agree("keep", ClockPolicy::new, () -> Admission.KEEP);
    }

    private void agree(String name, Supplier<EvictionPolicy> policy, Supplier<Admission> admission)
            throws IOException {
        Trace trace = Samplers.scanAmongEpochs(400, 1, 4, 9, 100);
        double[] simulated = Replay.hitRatios(trace, new StoreModel(trace.keys(), CAPACITY, Policies.HIGH,
                Policies.LOW, policy.get(), admission.get()));

        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve(name)),
                (long) CAPACITY * BLOCK, Policies.HIGH, Policies.LOW)), policy::get, admission.get(),
                BlockListener.NONE, false);
        double[] stored = Replay.hitRatios(trace, (key, position) -> read(store, trace.keys()[key]));

        assertThat(stored).containsExactly(simulated);
        assertThat(simulated[simulated.length - 1]).as("the trace tells the policies apart").isPositive();
    }

    @Test
    void sharesOfTheCacheKeepWhatTheStoreKeeps() throws IOException {
        Trace trace = Samplers.twoDatasets(150, 1, 4, 7, 11);
        DatasetShares shares = dataset -> dataset.equals("second") ? 0.4 : 0.3;
        double[] simulated = Replay.hitRatios(trace, new StoreModel(trace.keys(), CAPACITY, Policies.HIGH,
                Policies.LOW, new ClockPolicy(), Policies.tinyLfu(CAPACITY, 1, 10_000), shares));

        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("shares")),
                (long) CAPACITY * BLOCK, Policies.HIGH, Policies.LOW)), ClockPolicy::new,
                Policies.tinyLfu(CAPACITY, 1, 10_000), shares, BlockListener.NONE, false);
        double[] stored = Replay.hitRatios(trace, (key, position) -> read(store, trace.keys()[key]));

        assertThat(stored).containsExactly(simulated);
        assertThat(store.bytesByDataset()).as("the second job's share, 40 of 100 blocks")
                .containsEntry("second", 40L * BLOCK);
    }

    @Test
    void epochPlansKeepAndFetchWhatTheStoreDoes() throws IOException {
        Trace trace = Samplers.randomSampler(200, 1, 4, 13);  // twice the cache, a fresh order each epoch
        int window = CAPACITY / 4;
        WorkerPlans modelled = new WorkerPlans(Long.MAX_VALUE, 0, System::nanoTime);
        double[] simulated = Replay.hitRatios(trace, new EpochPlanModel(trace, modelled, new StoreModel(trace.keys(),
                CAPACITY, Policies.HIGH, Policies.LOW, new ClockPolicy(), Policies.tinyLfu(CAPACITY, 1, 800),
                DatasetShares.NONE, modelled), window));

        WorkerPlans plans = new WorkerPlans(Long.MAX_VALUE, 0, System::nanoTime);
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("plans")),
                (long) CAPACITY * BLOCK, Policies.HIGH, Policies.LOW)), ClockPolicy::new,
                Policies.tinyLfu(CAPACITY, 1, 800), DatasetShares.NONE, plans, BlockListener.NONE, false);
        double[] stored = Replay.hitRatios(trace, new EpochPlanModel(trace, plans, new EpochPlanModel.Store() {
            @Override
            public boolean holds(int key) {
                return store.holds(trace.keys()[key]);
            }

            @Override
            public boolean fill(int key) {
                return write(store, trace.keys()[key]);
            }

            @Override
            public boolean read(int key, int position) {
                return StoreAgreementTest.read(store, trace.keys()[key]);
            }
        }, window));

        assertThat(stored).containsExactly(simulated);
        double bound = Replay.steady(Replay.hitRatios(trace, new Clairvoyant(trace, CAPACITY)));
        assertThat(Replay.steady(simulated)).as("with the epoch's order known: near the clairvoyant bound %s", bound)
                .isGreaterThanOrEqualTo(0.9 * bound);
    }

    @Test
    void aWorkersRecordedTraceIsTheReadsItServed() throws IOException {
        Trace trace = Samplers.randomSampler(300, 2, 3, 5);
        Path file = dir.resolve("worker.trace");
        ReadTrace recording = new ReadTrace(file, BlockListener.NONE);
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("traced")),
                (long) CAPACITY * BLOCK, Policies.HIGH, Policies.LOW)), ClockPolicy::new,
                Policies.tinyLfu(CAPACITY, 1, 600), recording, false);
        Replay.hitRatios(trace, (key, position) -> read(store, trace.keys()[key]));
        recording.close();

        Trace recorded = RecordedTrace.read(file);

        assertThat(Arrays.stream(recorded.reads()).mapToObj(read -> recorded.keys()[read]))
                .as("every read, in order").containsExactlyElementsOf(
                        Arrays.stream(trace.reads()).mapToObj(read -> trace.keys()[read]).toList());
    }

    /** A reader's read, as the worker serves it: a hit, or a miss filled when the store takes the block. */
    private static boolean read(BlockStore store, BlockKey key) {
        if (store.find(key).isPresent()) {
            return true;
        }
        write(store, key);
        return false;
    }

    /** A fill, as a preload's batch asks it: stored when the store takes the block, no read counted. */
    private static boolean write(BlockStore store, BlockKey key) {
        Optional<BlockWriter> room = store.reserve(key, BLOCK);
        if (room.isPresent()) {
            try (BlockWriter writer = room.get()) {
                writer.write(new byte[BLOCK], 0, BLOCK);
                writer.commit("f", "e");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return room.isPresent();
    }
}
