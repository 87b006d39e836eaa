package io.granary.block.plan;

import io.granary.block.config.BlockConfig;
import io.granary.block.store.BlockKey;
import io.granary.block.store.PlannedReads;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.plan.PlanProgress;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.contracts.validation.ValidationException;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * This worker's parts of epoch plans: which of its blocks each plan reads, in what order, and which it read this
 * epoch (from the reads the store counts: the ones this worker served and the ones readers on its node reported).
 * The store asks it which blocks are spent or ahead; the preload-service asks how far the reader got.
 */
@ApplicationScoped
public class WorkerPlans implements PlannedReads {

    private static final Logger LOG = Logger.getLogger(WorkerPlans.class);

    /** One plan's blocks on this worker. */
    static final class Part {
        final String id;
        final String dataset;
        final int epoch;
        final Map<BlockId, Integer> slots;
        final int[] positions;
        private final BitSet read = new BitSet();
        private int readCount;
        private int furthest = -1;
        volatile long touched;

        Part(String id, WorkerPlan plan, long now) {
            this.id = id;
            this.dataset = plan.dataset();
            this.epoch = plan.epoch();
            this.slots = new HashMap<>(plan.blocks().size() * 2);
            this.positions = new int[plan.blocks().size()];
            for (int i = 0; i < positions.length; i++) {
                BlockId block;
                try {
                    block = BlockId.parse(plan.blocks().get(i));
                } catch (IllegalArgumentException e) {
                    throw new ValidationException("blocks[" + i + "]", e.getMessage());
                }
                slots.putIfAbsent(block, i);  // a block planned twice is read first at its first place
                positions[i] = plan.positions().get(i);
            }
            this.touched = now;
        }

        /** Marks the block read; true when it was not yet. */
        synchronized boolean read(int slot) {
            if (read.get(slot)) {
                return false;
            }
            read.set(slot);
            readCount++;
            furthest = Math.max(furthest, positions[slot]);
            return true;
        }

        synchronized int furthest() {
            return furthest;
        }

        synchronized boolean wasRead(int slot) {
            return read.get(slot);
        }

        synchronized PlanProgress progress() {
            return new PlanProgress(epoch, furthest, readCount);
        }
    }

    private final Map<String, Part> parts = new ConcurrentHashMap<>();
    /** The parts by dataset, replaced whole on every change: a read of a dataset without plans costs one lookup. */
    private volatile Map<String, List<Part>> byDataset = Map.of();
    private final long expireAfterNanos;
    private final long graceNanos;
    private final LongSupplier clock;

    @Inject
    WorkerPlans(BlockConfig config) {
        this(config.planExpireAfter().toNanos(), config.planSpentGrace().toNanos(), System::nanoTime);
    }

    /**
     * Plans on {@code clock}, a part kept for {@code expireAfterNanos} untouched (the simulator's are never), a spent
     * block kept {@code graceNanos} after its read.
     */
    public WorkerPlans(long expireAfterNanos, long graceNanos, LongSupplier clock) {
        this.expireAfterNanos = expireAfterNanos;
        this.graceNanos = graceNanos;
        this.clock = clock;
    }

    @Override
    public long graceNanos() {
        return graceNanos;
    }

    /** Takes this worker's part of plan {@code id}, in place of the one it had (an earlier epoch's). */
    public void put(String id, WorkerPlan plan) {
        Part part = new Part(id, plan, clock.getAsLong());
        synchronized (parts) {
            parts.put(id, part);
            reindex();
        }
        LOG.debugf("plan %s: %d blocks of %s, epoch %d", id, part.positions.length, plan.dataset(), plan.epoch());
    }

    public boolean remove(String id) {
        synchronized (parts) {
            Part removed = parts.remove(id);
            reindex();
            if (removed != null) {
                LOG.debugf("plan %s: forgot epoch %d (%s)", id, removed.epoch, removed.progress());
            }
            return removed != null;
        }
    }

    public Optional<PlanProgress> progress(String id) {
        Part part = parts.get(id);
        if (part == null) {
            return Optional.empty();
        }
        part.touched = clock.getAsLong();
        return Optional.of(part.progress());
    }

    /** Drops the parts nobody touched for {@code plan-expire-after}: their preload-service went away. */
    @Scheduled(every = "60s", delayed = "60s")
    void expire() {
        long now = clock.getAsLong();
        synchronized (parts) {
            if (parts.values().removeIf(part -> now - part.touched > expireAfterNanos)) {
                reindex();
            }
        }
    }

    private void reindex() {
        Map<String, List<Part>> index = new HashMap<>();
        for (Part part : parts.values()) {
            index.computeIfAbsent(part.dataset, dataset -> new ArrayList<>()).add(part);
        }
        index.replaceAll((dataset, list) -> List.copyOf(list));
        byDataset = Map.copyOf(index);
    }

    /**
     * A read is one reader's: when several plans read the block, it is counted for the one whose reader is nearest
     * the block's place in its order (two jobs on one dataset each keep the blocks they have yet to read).
     */
    @Override
    public boolean read(BlockKey key) {
        List<Part> planned = byDataset.get(key.dataset());
        if (planned == null) {
            return false;
        }
        Part reader = null;
        int slotOfReader = -1;
        long nearest = Long.MAX_VALUE;
        for (Part part : planned) {
            Integer slot = part.slots.get(key.id());
            if (slot != null && !part.wasRead(slot)) {
                long distance = Math.abs((long) part.positions[slot] - part.furthest());
                if (distance < nearest) {
                    nearest = distance;
                    reader = part;
                    slotOfReader = slot;
                }
            }
        }
        if (reader == null || !reader.read(slotOfReader)) {
            return false;
        }
        reader.touched = clock.getAsLong();
        return spent(key);
    }

    @Override
    public boolean spent(BlockKey key) {
        List<Part> planned = byDataset.get(key.dataset());
        if (planned == null) {
            return false;
        }
        boolean any = false;
        for (Part part : planned) {
            Integer slot = part.slots.get(key.id());
            if (slot != null) {
                if (!part.wasRead(slot)) {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    @Override
    public boolean ahead(BlockKey key) {
        List<Part> planned = byDataset.get(key.dataset());
        if (planned == null) {
            return false;
        }
        for (Part part : planned) {
            Integer slot = part.slots.get(key.id());
            if (slot != null && !part.wasRead(slot)) {
                return true;
            }
        }
        return false;
    }
}
