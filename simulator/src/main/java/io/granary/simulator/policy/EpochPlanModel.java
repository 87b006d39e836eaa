package io.granary.simulator.policy;

import io.granary.block.plan.WorkerPlans;
import io.granary.block.store.BlockKey;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.simulator.trace.Trace;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The store with epoch plans, as a job with a {@code GranarySampler} runs it: at each epoch's start the worker gets
 * the epoch's order ({@link WorkerPlans}, the worker's own class), and before each read the preload fills the blocks up
 * to {@code window} places ahead ({@link StoreModel#fill}). A read counts as a hit only when no store read was made for
 * it: a block the prefetch brought in for it was a store read all the same, only an earlier one.
 */
public final class EpochPlanModel implements CachePolicy {

    /** The store the plan's reads and fills go to: {@link StoreModel}, or a real block store. */
    public interface Store {
        boolean holds(int key);

        /** A preload's fill: stored if the store takes it, no read counted; whether the block is held after it. */
        boolean fill(int key);

        /** A reader's read, counted; whether the block was held. */
        boolean read(int key, int position);
    }

    private final Trace trace;
    private final Store store;
    private final WorkerPlans plans;
    private final int window;
    private final boolean[] fetchedUnread;
    private int epoch = -1;
    private int epochEnd;
    private int next;

    /** A store told of {@code plans}, which this model fills with each epoch's order. */
    public EpochPlanModel(Trace trace, WorkerPlans plans, Store store, int window) {
        this.trace = trace;
        this.plans = plans;
        this.store = store;
        this.window = window;
        this.fetchedUnread = new boolean[trace.keys().length];
    }

    @Override
    public boolean read(int key, int position) {
        while (position >= epochEnd) {
            startEpoch(++epoch);
        }
        int[] reads = trace.reads();
        for (next = Math.max(next, position); next < epochEnd && next <= position + window; next++) {
            int ahead = reads[next];
            if (!store.holds(ahead) && store.fill(ahead)) {
                fetchedUnread[ahead] = true;
            }
        }
        boolean hit = store.read(key, position);
        boolean free = hit && !fetchedUnread[key];
        fetchedUnread[key] = false;
        return free;
    }

    /** The epoch's order, one plan per dataset it reads, in place of the last epoch's. */
    private void startEpoch(int number) {
        int start = trace.epochStarts()[number];
        epochEnd = trace.epochEnd(number);
        Map<String, List<String>> ids = new LinkedHashMap<>();
        Map<String, List<Integer>> positions = new LinkedHashMap<>();
        for (int i = start; i < epochEnd; i++) {
            BlockKey block = trace.keys()[trace.reads()[i]];
            ids.computeIfAbsent(block.dataset(), dataset -> new ArrayList<>()).add(block.id().toString());
            positions.computeIfAbsent(block.dataset(), dataset -> new ArrayList<>()).add(i - start);
        }
        ids.forEach((dataset, blocks) -> plans.put("job-" + dataset, new WorkerPlan(dataset, number, blocks,
                positions.get(dataset))));
        next = start;
    }
}
