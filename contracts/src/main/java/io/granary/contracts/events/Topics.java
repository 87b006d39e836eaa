package io.granary.contracts.events;

/** The Kafka topics of the design; each record is keyed as noted so one key's records stay in order. */
public final class Topics {

    /** DataLoad spec + requestId, keyed by dataset. */
    public static final String PRELOAD_REQUESTS = "granary.preload.requests";
    /** DataLoad progress, keyed by load id. */
    public static final String PRELOAD_STATUS = "granary.preload.status";
    /** Dataset lifecycle and file changes, keyed by dataset. */
    public static final String DATASET_EVENTS = "granary.dataset.events";
    /** Blocks cached, evicted, corrupt, keyed by worker id. */
    public static final String BLOCK_EVENTS = "granary.block.events";
    /** A training job's read order for one epoch ({@code EpochPlan}), keyed by the plan's id (job and rank). */
    public static final String EPOCH_PLANS = "granary.epoch.plans";
    /** Worker liveness and usage, keyed by worker id. */
    public static final String WORKER_HEARTBEATS = "granary.worker.heartbeats";
    /** Management changes (who did what, when, and how it ended), keyed by the caller's name. */
    public static final String AUDIT = "granary.audit";
    /** Messages a consumer could not handle, with the reason in the headers of {@link DeadLetter}. */
    public static final String DEADLETTER = "granary.deadletter";

    private Topics() {
    }
}
