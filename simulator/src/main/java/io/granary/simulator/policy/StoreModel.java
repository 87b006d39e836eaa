package io.granary.simulator.policy;

import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
import io.granary.block.store.DatasetShares;
import io.granary.block.store.EvictionPolicy;

import java.util.HashMap;
import java.util.Map;

/**
 * One level of the block store, as {@code BlockStore} decides, in blocks rather than bytes: the store's own eviction
 * policy and admission, asked what the store asks them. A block read is counted ({@link Admission#recorded}) and,
 * when held, is a hit ({@link EvictionPolicy#accessed}). A miss is stored when the level has room. When it has none,
 * the policy names its victim and admission says whether the newcomer may replace it: admitted always (plain LRU or
 * CLOCK), the level is brought down to its low watermark; judged by admission, the victim alone leaves; refused,
 * the block is read through uncached. Under admission that can refuse, a level fills to its quota and is not
 * emptied to a watermark. With {@link DatasetShares}, as the store: a block whose leaving would take its dataset
 * (not idle) below its share stays for another dataset's newcomer, and a newcomer whose dataset is below its share
 * takes the first victim that may leave, whatever admission says.
 */
public final class StoreModel implements CachePolicy {

    private final BlockKey[] keys;
    private final boolean[] held;
    private final int capacity;
    private final int high;
    private final int low;
    private final EvictionPolicy policy;
    private final Admission admission;
    private final DatasetShares shares;
    /** Where a victim the policy names is in {@code keys}: asked once per eviction, never per read. */
    private final Map<BlockKey, Integer> positions;
    /** Blocks held per dataset. */
    private final Map<String, Integer> heldOf = new HashMap<>();
    private int used;

    /**
     * @param capacity blocks the level holds at most (its quota)
     * @param high     the high watermark, a fraction of the quota: passing it evicts down to {@code low}
     */
    public StoreModel(BlockKey[] keys, int capacity, double high, double low, EvictionPolicy policy,
                      Admission admission) {
        this(keys, capacity, high, low, policy, admission, DatasetShares.NONE);
    }

    public StoreModel(BlockKey[] keys, int capacity, double high, double low, EvictionPolicy policy,
                      Admission admission, DatasetShares shares) {
        this.keys = keys;
        this.held = new boolean[keys.length];
        this.capacity = capacity;
        this.high = (int) Math.floor(capacity * high);
        this.low = (int) Math.floor(capacity * low);
        this.policy = policy;
        this.admission = admission;
        this.shares = shares;
        this.positions = new HashMap<>(keys.length * 2);
        for (int i = 0; i < keys.length; i++) {
            positions.put(keys[i], i);
        }
    }

    @Override
    public boolean read(int key, int position) {
        BlockKey block = keys[key];
        admission.recorded(block);
        if (held[key]) {
            policy.accessed(block);
            return true;
        }
        String dataset = block.dataset();
        if (used >= capacity) {
            if (admission != Admission.ALWAYS) {
                BlockKey leaving = leaving(dataset);
                if (leaving == null) {
                    return false;  // every block is kept for its dataset's share
                }
                boolean belowShare = !leaving.dataset().equals(dataset)
                        && heldOf(dataset) + 1 <= shares.of(dataset) * capacity;
                if (!belowShare && !admission.admits(block, leaving)) {
                    return false;  // read through, not stored
                }
            }
            evictTo(admission == Admission.ALWAYS ? Math.min(low, capacity - 1) : capacity - 1, dataset);
            if (used >= capacity) {
                return false;
            }
        }
        held[key] = true;
        used++;
        heldOf.merge(dataset, 1, Integer::sum);
        policy.admitted(block);
        if (admission == Admission.ALWAYS && used > high) {
            evictTo(low, dataset);
        }
        return false;
    }

    /** The first victim that may leave for a newcomer of {@code dataset}; the kept ones passed over as read. */
    private BlockKey leaving(String dataset) {
        if (!anyMayLeave(dataset)) {
            return null;
        }
        for (int passed = 0; passed <= used; passed++) {
            BlockKey victim = policy.victim();
            if (victim == null) {
                return null;
            }
            if (!kept(victim, dataset)) {
                return victim;
            }
            policy.accessed(victim);
        }
        return null;
    }

    private boolean anyMayLeave(String newcomer) {
        for (Map.Entry<String, Integer> held : heldOf.entrySet()) {
            String dataset = held.getKey();
            double share = dataset.equals(newcomer) || admission.idle(dataset) ? 0 : shares.of(dataset);
            if (held.getValue() > share * capacity) {
                return true;
            }
        }
        return false;
    }

    private boolean kept(BlockKey block, String newcomer) {
        String dataset = block.dataset();
        double share = shares.of(dataset);
        return share > 0 && !dataset.equals(newcomer) && heldOf(dataset) - 1 < share * capacity
                && !admission.idle(dataset);
    }

    private int heldOf(String dataset) {
        return heldOf.getOrDefault(dataset, 0);
    }

    private void evictTo(int target, String dataset) {
        if (!anyMayLeave(dataset)) {
            return;
        }
        int passed = 0;
        while (used > target) {
            BlockKey victim = policy.victim();
            if (victim == null) {
                return;
            }
            if (kept(victim, dataset)) {
                policy.accessed(victim);
                if (++passed > used) {
                    return;
                }
                continue;
            }
            policy.removed(victim);
            held[positions.get(victim)] = false;
            heldOf.merge(victim.dataset(), -1, Integer::sum);
            used--;
        }
    }
}
