package io.granary.simulator.policy;

import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
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
 * emptied to a watermark.
 */
public final class StoreModel implements CachePolicy {

    private final BlockKey[] keys;
    private final boolean[] held;
    private final int capacity;
    private final int high;
    private final int low;
    private final EvictionPolicy policy;
    private final Admission admission;
    /** Where a victim the policy names is in {@code keys}: asked once per eviction, never per read. */
    private final Map<BlockKey, Integer> positions;
    private int used;

    /**
     * @param capacity blocks the level holds at most (its quota)
     * @param high     the high watermark, a fraction of the quota: passing it evicts down to {@code low}
     */
    public StoreModel(BlockKey[] keys, int capacity, double high, double low, EvictionPolicy policy,
                      Admission admission) {
        this.keys = keys;
        this.held = new boolean[keys.length];
        this.capacity = capacity;
        this.high = (int) Math.floor(capacity * high);
        this.low = (int) Math.floor(capacity * low);
        this.policy = policy;
        this.admission = admission;
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
        if (used >= capacity) {
            BlockKey victim = policy.victim();
            if (victim != null && !admission.admits(block, victim)) {
                return false;  // read through, not stored
            }
            evictTo(admission == Admission.ALWAYS ? Math.min(low, capacity - 1) : capacity - 1);
        }
        held[key] = true;
        used++;
        policy.admitted(block);
        if (admission == Admission.ALWAYS && used > high) {
            evictTo(low);
        }
        return false;
    }

    private void evictTo(int target) {
        while (used > target) {
            BlockKey victim = policy.victim();
            policy.removed(victim);
            held[positions.get(victim)] = false;
            used--;
        }
    }
}
