package io.granary.contracts.placement;

import io.granary.contracts.worker.Worker;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RendezvousPlacementTest {

    private static final int BLOCKS = 100_000;

    @Test
    void spreadsBlocksEvenlyOverAHundredWorkers() {
        List<Worker> workers = workers(100);
        int keys = 200_000;
        Map<String, Integer> owned = new HashMap<>();
        for (int i = 0; i < keys; i++) {
            owned.merge(owner(block(i), workers), 1, Integer::sum);
        }

        double even = keys / 100.0;
        assertThat(owned).hasSize(100);
        assertThat(owned.values()).allSatisfy(count ->
                assertThat((double) count).isBetween(even * 0.9, even * 1.1));
    }

    @Test
    void aJoiningWorkerTakesAboutOneNthAndOnlyFromOthers() {
        int n = 50;
        List<Worker> before = workers(n);
        List<Worker> after = workers(n + 1);

        int moved = 0;
        for (int i = 0; i < BLOCKS; i++) {
            String was = owner(block(i), before);
            String is = owner(block(i), after);
            if (!was.equals(is)) {
                moved++;
                assertThat(is).as("a block only moves to the newcomer").isEqualTo(worker(n).id());
            }
        }
        assertThat(moved).isPositive().isLessThanOrEqualTo((int) (1.1 * BLOCKS / n));
    }

    @Test
    void aLeavingWorkerGivesUpOnlyItsOwnBlocks() {
        int n = 50;
        List<Worker> before = workers(n);
        List<Worker> after = new ArrayList<>(before);
        Worker leaving = after.remove(17);

        int moved = 0;
        for (int i = 0; i < BLOCKS; i++) {
            String was = owner(block(i), before);
            if (!was.equals(owner(block(i), after))) {
                moved++;
                assertThat(was).isEqualTo(leaving.id());
            }
        }
        assertThat(moved).isPositive().isLessThanOrEqualTo((int) (1.1 * BLOCKS / n));
    }

    @Test
    void aDeadWorkerIsTreatedAsGone() {
        List<Worker> workers = new ArrayList<>(workers(10));
        Worker dead = workers.get(3);
        workers.set(3, dead.left());

        for (int i = 0; i < 5_000; i++) {
            assertThat(owner(block(i), workers)).isNotEqualTo(dead.id());
        }
    }

    @Test
    void replicasAreDistinctAndTheFirstIsTheSingleOwner() {
        List<Worker> workers = workers(10);
        for (int i = 0; i < 1_000; i++) {
            List<Worker> owners = RendezvousPlacement.owners(block(i), workers, Map.of(), 3);
            assertThat(owners).hasSize(3).doesNotHaveDuplicates();
            assertThat(owners.get(0).id()).isEqualTo(owner(block(i), workers));
        }
        assertThat(RendezvousPlacement.owners(block(1), workers(2), Map.of(), 3)).hasSize(2);
        assertThatThrownBy(() -> RendezvousPlacement.owners(block(1), workers, Map.of(), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void honoursTheNodeSelector() {
        List<Worker> workers = workers(20);
        Map<String, String> gpuZone = Map.of("zone", "b");
        for (int i = 0; i < 2_000; i++) {
            assertThat(RendezvousPlacement.owners(block(i), workers, gpuZone, 2))
                    .allSatisfy(owner -> assertThat(owner.labels()).containsEntry("zone", "b"));
        }
        assertThat(RendezvousPlacement.owners(block(0), workers, Map.of("zone", "nowhere"), 1)).isEmpty();
    }

    @Test
    void theSameInputsGiveTheSameOwnersInEveryJvm() {
        // Golden values, computed independently in Python: the weight is defined on bytes, never on a per-JVM
        // hash, so these never change.
        assertThat(RendezvousPlacement.weight("worker-1", "d4013a12d63614dfbdd526058351e845-0"))
                .isEqualTo(GOLDEN_WEIGHT);
        assertThat(RendezvousPlacement.owners("d4013a12d63614dfbdd526058351e845-0", workers(10), Map.of(), 3))
                .extracting(Worker::id).containsExactly(GOLDEN_OWNERS);
    }

    private static final long GOLDEN_WEIGHT = -3771300448695741864L;
    private static final String[] GOLDEN_OWNERS = {"worker-8", "worker-1", "worker-9"};

    private static String owner(String block, List<Worker> workers) {
        return RendezvousPlacement.owners(block, workers, Map.of(), 1).get(0).id();
    }

    private static String block(int i) {
        return String.format("%032x-%d", (long) i * 2654435761L, i % 7);
    }

    private static List<Worker> workers(int n) {
        return IntStream.range(0, n).mapToObj(RendezvousPlacementTest::worker).toList();
    }

    private static Worker worker(int i) {
        return new Worker("worker-" + i, "node-" + i, "http://10.0.0." + i + ":8082",
                Map.of("zone", i % 2 == 0 ? "a" : "b"), List.of(), Instant.EPOCH, true, null, 0, 0, 0, null);
    }
}
