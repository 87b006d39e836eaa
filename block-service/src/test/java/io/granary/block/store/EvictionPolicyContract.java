package io.granary.block.store;

import io.granary.contracts.block.BlockId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What BlockStore relies on from any {@link EvictionPolicy}, whatever order it picks victims in: a victim is a block
 * it was told about and not told is gone, it stays the victim until removed, and nothing is lost under concurrency.
 * A policy's test extends this and adds its own order.
 */
abstract class EvictionPolicyContract {

    abstract EvictionPolicy newPolicy();

    static BlockKey key(int n) {
        return key("imagenet", n);
    }

    static BlockKey key(String dataset, int n) {
        return new BlockKey(dataset, BlockId.of(dataset, "train/shard-" + n, "etag-" + n, n % 7));
    }

    /** Victims one after the other, each removed as BlockStore does once it evicted it. */
    static List<BlockKey> drain(EvictionPolicy policy) {
        List<BlockKey> victims = new ArrayList<>();
        for (BlockKey victim = policy.victim(); victim != null; victim = policy.victim()) {
            victims.add(victim);
            policy.removed(victim);
        }
        return victims;
    }

    @Test
    void anEmptyLevelHasNoVictim() {
        assertThat(newPolicy().victim()).isNull();
    }

    @Test
    void theVictimStaysInPlaceUntilRemoved() {
        EvictionPolicy policy = newPolicy();
        policy.admitted(key(1));
        policy.admitted(key(2));

        BlockKey victim = policy.victim();
        assertThat(policy.victim()).as("asked again before removal").isEqualTo(victim);

        policy.removed(victim);
        assertThat(policy.victim()).isNotNull().isNotEqualTo(victim);
    }

    @Test
    void everyAdmittedBlockIsAVictimExactlyOnce() {
        EvictionPolicy policy = newPolicy();
        List<BlockKey> admitted = IntStream.range(0, 50).mapToObj(EvictionPolicyContract::key).toList();
        admitted.forEach(policy::admitted);
        admitted.stream().filter(k -> k.id().index() % 2 == 0).forEach(policy::accessed);

        assertThat(drain(policy)).containsExactlyInAnyOrderElementsOf(admitted);
        assertThat(policy.victim()).isNull();
    }

    @Test
    void aRemovedBlockIsNeverTheVictim() {
        EvictionPolicy policy = newPolicy();
        policy.admitted(key(1));
        policy.admitted(key(2));
        policy.admitted(key(3));

        policy.removed(key(2));

        assertThat(drain(policy)).containsExactlyInAnyOrder(key(1), key(3));
    }

    @Test
    void readingOrRemovingAnUnknownBlockAdmitsNothing() {
        EvictionPolicy policy = newPolicy();

        policy.accessed(key(1));
        policy.removed(key(2));

        assertThat(policy.victim()).isNull();
    }

    @Test
    void aBlockAdmittedAgainIsHeldOnce() {
        // A block rewritten in place, or moved back into a level, is admitted again without a removal first.
        EvictionPolicy policy = newPolicy();
        policy.admitted(key(1));
        policy.admitted(key(2));
        policy.admitted(key(1));

        assertThat(drain(policy)).containsExactlyInAnyOrder(key(1), key(2));
    }

    @Test
    void theSameBlockIdInTwoDatasetsIsTwoBlocks() {
        EvictionPolicy policy = newPolicy();
        BlockKey inA = new BlockKey("a", key(1).id());
        BlockKey inB = new BlockKey("b", key(1).id());
        policy.admitted(inA);
        policy.admitted(inB);

        policy.removed(inA);

        assertThat(drain(policy)).containsExactly(inB);
    }

    @Test
    void concurrentAdmissionsReadsAndRemovalsLoseNothing() throws Exception {
        EvictionPolicy policy = newPolicy();
        int threads = 4;
        int perThread = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                work.add(() -> {
                    for (int i = base; i < base + perThread; i++) {
                        policy.admitted(key(i));
                        policy.accessed(key(i - base / 2));
                        if (i % 3 == 0) {
                            policy.removed(key(i));
                        }
                        policy.victim();
                    }
                    return null;
                });
            }
            for (Future<Void> done : pool.invokeAll(work)) {
                done.get();
            }
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }

        Set<BlockKey> expected = new HashSet<>();
        IntStream.range(0, threads * perThread).filter(i -> i % 3 != 0).forEach(i -> expected.add(key(i)));
        assertThat(drain(policy)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
    }
}
