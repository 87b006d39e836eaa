package io.granary.block.plan;

import io.granary.block.store.BlockKey;
import io.granary.block.store.BlockListener;
import io.granary.block.store.BlockStore;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.ClockPolicy;
import io.granary.block.store.DatasetShares;
import io.granary.block.store.LevelSpec;
import io.granary.block.store.TinyLfuAdmission;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.plan.PlanProgress;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.contracts.worker.Medium;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** A worker's parts of epoch plans, alone and as a real block store's eviction and admission see them. */
class WorkerPlansTest {

    private static final int KIB = 1024;
    private static final long MINUTE = 60_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong();
    private final WorkerPlans plans = new WorkerPlans(10 * MINUTE, 0, now::get);

    @Test
    void aPlanSaysHowFarItsReaderGotAndWhatItSpent() {
        plans.put("job.0", plan(1, "a", "b", "c"));
        assertThat(plans.ahead(key("b"))).isTrue();

        assertThat(plans.read(key("b"))).as("the read spent it").isTrue();
        assertThat(plans.read(key("b"))).as("spent once").isFalse();
        assertThat(plans.read(key("z"))).as("in no plan").isFalse();

        assertThat(plans.progress("job.0")).contains(new PlanProgress(1, 1, 1));
        assertThat(plans.spent(key("b"))).isTrue();
        assertThat(plans.ahead(key("b"))).isFalse();
        assertThat(plans.spent(key("a"))).isFalse();
        assertThat(plans.spent(key("z"))).isFalse();
    }

    @Test
    void aBlockTwoPlansReadIsSpentOnlyOnceBothReadIt() {
        plans.put("one.0", plan(0, "a", "b"));
        plans.put("two.0", plan(0, "b", "a"));

        assertThat(plans.read(key("a"))).as("the reader nearest it, plan one's, read it; plan two has not").isFalse();
        assertThat(plans.progress("one.0")).contains(new PlanProgress(0, 0, 1));
        assertThat(plans.progress("two.0")).contains(new PlanProgress(0, -1, 0));
        assertThat(plans.ahead(key("a"))).isTrue();

        assertThat(plans.read(key("a"))).as("now both have").isTrue();
        assertThat(plans.spent(key("a"))).isTrue();
    }

    @Test
    void theNextEpochsPlanStartsAfreshAndAnUntouchedPartExpires() {
        plans.put("job.0", plan(1, "a", "b"));
        plans.read(key("a"));
        plans.put("job.0", plan(2, "b", "a"));

        assertThat(plans.spent(key("a"))).isFalse();
        assertThat(plans.progress("job.0")).contains(new PlanProgress(2, -1, 0));

        now.addAndGet(11 * MINUTE);
        plans.expire();
        assertThat(plans.progress("job.0")).isEmpty();
        assertThat(plans.ahead(key("a"))).isFalse();
    }

    /**
     * A cache of 10 blocks filled by one epoch's reads, TinyLFU judging newcomers. A block the plan reads later is
     * admitted for the room of one the epoch read, and that one leaves, not CLOCK's victim; without the plan the
     * same newcomer is refused.
     */
    @Test
    void theStoreEvictsTheSpentFirstAndAdmitsWhatThePlanReadsLater() throws IOException {
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 10 * KIB,
                        0.95, 0.7)), ClockPolicy::new, new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0),
                DatasetShares.NONE, plans, BlockListener.NONE, true);
        for (int i = 0; i < 10; i++) {
            read(store, key("held-" + i));
        }
        plans.put("job.0", plan(1, "held-5", "held-6", "new-0", "new-1", "held-0"));
        read(store, key("held-5"));
        read(store, key("held-6"));

        assertThat(prefetch(store, key("new-0"))).as("admitted for a spent block's room").isTrue();
        assertThat(store.holds(key("held-5"))).as("spent: the first to go").isFalse();
        assertThat(store.holds(key("held-0"))).as("CLOCK's victim, read later by the plan, stays").isTrue();

        plans.remove("job.0");
        assertThat(prefetch(store, key("new-1"))).as("no plan: TinyLFU refuses a block read less").isFalse();
        assertThat(store.holds(key("held-6"))).isTrue();
    }

    @Test
    void aBlockJustReadStaysForItsGraceItsReaderMayNotHaveOpenedItYet() throws IOException {
        WorkerPlans patient = new WorkerPlans(10 * MINUTE, 60 * MINUTE, now::get);
        BlockStore store = BlockStore.open(List.of(new LevelSpec(Medium.MEM, List.of(dir.resolve("grace")), 4 * KIB,
                        0.95, 0.7)), ClockPolicy::new, new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0),
                DatasetShares.NONE, patient, BlockListener.NONE, true);
        IntStream.range(0, 4).forEach(i -> read(store, key("b-" + i)));
        patient.put("job.0", plan(1, "b-0", "new-0"));
        read(store, key("b-0"));

        assertThat(prefetch(store, key("new-0"))).as("no spent block may leave yet: TinyLFU refuses").isFalse();
        assertThat(store.holds(key("b-0"))).isTrue();
    }

    @Test
    void aSpentBlockLeavesTheNodeRatherThanMovingALevelDown() throws IOException {
        BlockStore store = BlockStore.open(List.of(
                        new LevelSpec(Medium.MEM, List.of(dir.resolve("mem")), 4 * KIB, 0.95, 0.7),
                        new LevelSpec(Medium.SSD, List.of(dir.resolve("ssd")), 4 * KIB, 0.95, 0.7)),
                ClockPolicy::new, new TinyLfuAdmission(64, 1, Long.MAX_VALUE, () -> 0), DatasetShares.NONE, plans,
                BlockListener.NONE, true);
        IntStream.range(0, 8).forEach(i -> read(store, key("b-" + i)));  // 4 in MEM, 4 moved down to SSD
        String inMem = IntStream.range(0, 8).mapToObj(i -> "b-" + i)
                .filter(name -> store.peek(key(name)).orElseThrow().dir().level().rank() == 0).findFirst().orElseThrow();
        plans.put("job.0", plan(1, inMem, "new-0"));
        read(store, key(inMem));

        assertThat(prefetch(store, key("new-0"))).isTrue();
        assertThat(store.holds(key(inMem))).isFalse();
        assertThat(store.blockCount()).as("nothing else left: the spent block went, not a block of SSD").isEqualTo(8);
    }

    /** A reader's read as the worker serves it: counted, then stored on a miss when the store takes it. */
    private static void read(BlockStore store, BlockKey key) {
        if (store.find(key).isEmpty()) {
            store.reserve(key, KIB).ifPresent(room -> write(room));
        }
    }

    /** A preload's fill: no read counted, stored when the store takes it. */
    private static boolean prefetch(BlockStore store, BlockKey key) {
        Optional<BlockWriter> room = store.reserve(key, KIB);
        room.ifPresent(WorkerPlansTest::write);
        return room.isPresent();
    }

    private static void write(BlockWriter room) {
        try (BlockWriter writer = room) {
            writer.write(new byte[KIB], 0, KIB);
            writer.commit("file", "etag");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static WorkerPlan plan(int epoch, String... files) {
        List<String> ids = java.util.Arrays.stream(files).map(file -> key(file).id().toString()).toList();
        return new WorkerPlan("ds", epoch, ids, IntStream.range(0, files.length).boxed().toList());
    }

    private static BlockKey key(String file) {
        return new BlockKey("ds", BlockId.of("ds", file, "etag", 0));
    }
}
