package io.granary.simulator.policy;

import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
import io.granary.block.store.DatasetShares;
import io.granary.block.store.EvictionPolicy;
import io.granary.block.store.PlannedReads;

import java.util.ArrayDeque;
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
 * takes the first victim that may leave, whatever admission says. With {@link PlannedReads} (a worker's epoch plans),
 * as the store: a block every plan read this epoch (spent) leaves first, and a block a plan reads later is admitted for
 * a spent block's room; {@link #fill} is a preload's fill, which reads nothing.
 */
public final class StoreModel implements CachePolicy, EpochPlanModel.Store {

    private final BlockKey[] keys;
    private final boolean[] held;
    private final int capacity;
    private final int high;
    private final int low;
    private final EvictionPolicy policy;
    private final Admission admission;
    private final DatasetShares shares;
    private final PlannedReads plans;
    /** Blocks a read spent, oldest first; entries no longer held or spent are dropped when met. */
    private final ArrayDeque<Integer> spent = new ArrayDeque<>();
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
        this(keys, capacity, high, low, policy, admission, shares, PlannedReads.NONE);
    }

    public StoreModel(BlockKey[] keys, int capacity, double high, double low, EvictionPolicy policy,
                      Admission admission, DatasetShares shares, PlannedReads plans) {
        this.keys = keys;
        this.plans = plans;
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
        boolean hit = held[key];
        if (hit) {
            policy.accessed(block);
        }
        if (plans.read(block) && hit) {
            spent.add(key);
        }
        if (!hit) {
            store(key);
        }
        return hit;
    }

    @Override
    public boolean fill(int key) {
        return held[key] || store(key);
    }

    @Override
    public boolean holds(int key) {
        return held[key];
    }

    /** Stores a block not held, as the store does a miss; whether it took it. */
    private boolean store(int key) {
        BlockKey block = keys[key];
        String dataset = block.dataset();
        if (used >= capacity) {
            if (plans.ahead(block) && spentVictim(dataset) >= 0) {
                evictTo(capacity - 1, dataset);  // a block read later this epoch takes a spent one's room
            } else if (admission != Admission.ALWAYS) {
                BlockKey leaving = leaving(dataset);
                if (leaving == null) {
                    return false;  // every block is kept for its dataset's share
                }
                boolean belowShare = !leaving.dataset().equals(dataset)
                        && heldOf(dataset) + 1 <= shares.of(dataset) * capacity;
                if (!belowShare && !admission.admits(block, leaving)) {
                    return false;  // read through, not stored
                }
                evictTo(capacity - 1, dataset);
            } else {
                evictTo(Math.min(low, capacity - 1), dataset);
            }
            if (used >= capacity) {
                return false;
            }
        }
        held[key] = true;
        used++;
        heldOf.merge(dataset, 1, Integer::sum);
        policy.admitted(block);
        if (plans.spent(block)) {
            spent.add(key);  // filled for the read that spent it
        }
        if (admission == Admission.ALWAYS && used > high) {
            evictTo(low, dataset);
        }
        return true;
    }

    /** The oldest spent block that may leave for a newcomer of {@code dataset}; -1 when none. */
    private int spentVictim(String dataset) {
        for (Integer key; (key = spent.peekFirst()) != null; spent.pollFirst()) {
            if (held[key] && plans.spent(keys[key])) {
                return kept(keys[key], dataset) ? -1 : key;
            }
        }
        return -1;
    }

    /** The first victim that may leave for a newcomer of {@code dataset}; the kept ones passed over as read. */
    private BlockKey leaving(String dataset) {
        if (!anyMayLeave(dataset)) {
            return null;
        }
        int spentOne = spentVictim(dataset);
        if (spentOne >= 0) {
            return keys[spentOne];
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
            int spentOne = spentVictim(dataset);
            BlockKey victim = spentOne >= 0 ? keys[spentOne] : policy.victim();
            if (victim == null) {
                return;
            }
            if (spentOne < 0 && kept(victim, dataset)) {
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
