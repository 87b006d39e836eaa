package io.granary.simulator;

import io.granary.block.plan.WorkerPlans;
import io.granary.block.store.Admission;
import io.granary.block.store.BlockKey;
import io.granary.block.store.ClockPolicy;
import io.granary.block.store.DatasetShares;
import io.granary.block.store.LruPolicy;
import io.granary.block.store.TinyLfuAdmission;
import io.granary.simulator.policy.CachePolicy;
import io.granary.simulator.policy.CaffeineModel;
import io.granary.simulator.policy.Clairvoyant;
import io.granary.simulator.policy.EpochPlanModel;
import io.granary.simulator.policy.StoreModel;
import io.granary.simulator.trace.Trace;

import java.util.List;
import java.util.function.BiFunction;

/**
 * The policies judged: the block store's own (eviction order and admission, with the store's default watermarks
 * 0.95 and 0.7) and the references, Caffeine's W-TinyLFU and the clairvoyant bound.
 */
public final class Policies {

    /** A policy by name, made for a trace and a capacity in blocks. */
    public record Named(String name, BiFunction<Trace, Integer, CachePolicy> make) {
    }

    static final double HIGH = 0.95;
    static final double LOW = 0.7;

    private Policies() {
    }

    /** TinyLFU admission on a clock that counts reads: a dataset is idle after {@code idleReads} reads of others. */
    static Admission tinyLfu(int capacity, int margin, long idleReads) {
        long[] reads = {0};
        TinyLfuAdmission admission = new TinyLfuAdmission(capacity, margin, idleReads, () -> reads[0]);
        return new Admission() {
            @Override
            public void recorded(BlockKey key) {
                reads[0]++;
                admission.recorded(key);
            }

            @Override
            public boolean admits(BlockKey candidate, BlockKey victim) {
                return admission.admits(candidate, victim);
            }

            @Override
            public boolean idle(String dataset) {
                return admission.idle(dataset);
            }
        };
    }

    /** The store's default told each epoch's order, the preload fetching {@code window} blocks ahead of the reader. */
    static CachePolicy withPlans(Trace trace, int capacity, int window) {
        WorkerPlans plans = new WorkerPlans(Long.MAX_VALUE, 0, System::nanoTime);
        return new EpochPlanModel(trace, plans, new StoreModel(trace.keys(), capacity, HIGH, LOW, new ClockPolicy(),
                tinyLfu(capacity, TinyLfuAdmission.MARGIN, trace.blocks()), DatasetShares.NONE, plans), window);
    }

    public static List<Named> all() {
        return List.of(
                new Named("LRU (the store until now)", (trace, capacity) -> new StoreModel(trace.keys(), capacity,
                        HIGH, LOW, new LruPolicy(), Admission.ALWAYS)),
                new Named("CLOCK", (trace, capacity) -> new StoreModel(trace.keys(), capacity, HIGH, LOW,
                        new ClockPolicy(), Admission.ALWAYS)),
                new Named("keep once full (CoorDL)", (trace, capacity) -> new StoreModel(trace.keys(), capacity,
                        HIGH, LOW, new ClockPolicy(), Admission.KEEP)),
                new Named("TinyLFU admission + CLOCK", (trace, capacity) -> new StoreModel(trace.keys(), capacity,
                        HIGH, LOW, new ClockPolicy(), tinyLfu(capacity, 0, Long.MAX_VALUE))),
                new Named("TinyLFU admission, margin 1 + CLOCK", (trace, capacity) -> new StoreModel(trace.keys(),
                        capacity, HIGH, LOW, new ClockPolicy(), tinyLfu(capacity, 1, Long.MAX_VALUE))),
                new Named("TinyLFU admission, margin 1, idle datasets give way + CLOCK", (trace, capacity) ->
                        new StoreModel(trace.keys(), capacity, HIGH, LOW, new ClockPolicy(),
                                tinyLfu(capacity, 1, trace.blocks()))),
                new Named("TinyLFU admission, margin 2, idle datasets give way + CLOCK (the store's default)",
                        (trace, capacity) -> new StoreModel(trace.keys(), capacity, HIGH, LOW, new ClockPolicy(),
                                tinyLfu(capacity, TinyLfuAdmission.MARGIN, trace.blocks()))),
                new Named("the store's default, every dataset a share of 1/2", (trace, capacity) ->
                        new StoreModel(trace.keys(), capacity, HIGH, LOW, new ClockPolicy(),
                                tinyLfu(capacity, TinyLfuAdmission.MARGIN, trace.blocks()), dataset -> 0.5)),
                new Named("the store's default with epoch plans, fetched 1/16 of the cache ahead", (trace, capacity) ->
                        withPlans(trace, capacity, Math.max(1, capacity / 16))),
                new Named("the store's default with epoch plans, fetched 1/4 of the cache ahead", (trace, capacity) ->
                        withPlans(trace, capacity, Math.max(1, capacity / 4))),
                new Named("W-TinyLFU (Caffeine)", (trace, capacity) -> new CaffeineModel(capacity)),
                new Named("clairvoyant (Belady, the bound)", Clairvoyant::new));
    }
}
