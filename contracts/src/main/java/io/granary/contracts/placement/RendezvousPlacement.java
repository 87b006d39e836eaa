package io.granary.contracts.placement;

import io.granary.contracts.worker.Worker;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Highest-random-weight placement: a block's owners are the {@code replicas} workers with the largest
 * {@code weight(workerId, blockId)} among the live workers the dataset's nodeSelector allows (a draining worker
 * is passed over). Every gateway and
 * preload replica computes it alone from the membership, so no block map exists; one worker joining or leaving
 * moves only the blocks it wins or held (about 1/N).
 *
 * <p>The weight is defined on UTF-8 bytes with fixed constants (FNV-1a, then the SplitMix64 finaliser), never on
 * {@link String#hashCode()} or a seeded hash, so every JVM and every language can agree on it.
 */
public final class RendezvousPlacement {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private RendezvousPlacement() {
    }

    /** The owners, best first; fewer than {@code replicas} when fewer workers qualify. */
    public static List<Worker> owners(String blockId, Collection<Worker> workers, Map<String, String> nodeSelector,
                                      int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1: " + replicas);
        }
        long block = mix(hash(blockId));
        List<Ranked> ranked = new ArrayList<>();
        for (Worker worker : workers) {
            if (worker.owns() && worker.matches(nodeSelector)) {
                ranked.add(new Ranked(worker, weight(hash(worker.id()), block)));
            }
        }
        ranked.sort(Ranked.BEST_FIRST);
        List<Worker> owners = new ArrayList<>(Math.min(replicas, ranked.size()));
        for (int i = 0; i < ranked.size() && i < replicas; i++) {
            owners.add(ranked.get(i).worker());
        }
        return owners;
    }

    /**
     * Every one of the workers, best first for the block, whether it may own blocks or not: who most likely holds
     * it, since a worker leaving (or left) held the share it was best for.
     */
    public static List<Worker> ranked(String blockId, Collection<Worker> workers) {
        long block = mix(hash(blockId));
        return workers.stream().map(worker -> new Ranked(worker, weight(hash(worker.id()), block)))
                .sorted(Ranked.BEST_FIRST).map(Ranked::worker).toList();
    }

    /** The weight of a worker for a block, from their ids. */
    public static long weight(String workerId, String blockId) {
        return weight(hash(workerId), mix(hash(blockId)));
    }

    private static long weight(long workerHash, long mixedBlockHash) {
        return mix(workerHash ^ mixedBlockHash);
    }

    /** FNV-1a over UTF-8. */
    static long hash(String text) {
        long hash = FNV_OFFSET;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    /** SplitMix64's finaliser: every input bit flips about half of the output bits. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private record Ranked(Worker worker, long weight) {
        // Unsigned so the whole 64-bit range counts; ties (practically never) go to the smaller id.
        static final Comparator<Ranked> BEST_FIRST = Comparator
                .comparing(Ranked::weight, (a, b) -> Long.compareUnsigned(b, a))
                .thenComparing(ranked -> ranked.worker().id());
    }
}
