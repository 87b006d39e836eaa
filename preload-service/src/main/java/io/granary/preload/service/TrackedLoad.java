package io.granary.preload.service;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.preload.store.LoadRecord;
import io.smallrye.mutiny.operators.multi.processors.BroadcastProcessor;

import java.util.concurrent.ScheduledFuture;

/** A DataLoad this replica runs: its record, its latest status, a cancel flag, and its status stream. */
final class TrackedLoad {


    final String id;
    final String requestId;
    final DataLoadSpec spec;
    final BroadcastProcessor<DataLoadStatus> updates = BroadcastProcessor.create();
    volatile DataLoadStatus status;
    volatile boolean cancelled;
    volatile ScheduledFuture<?> nextRun;

    TrackedLoad(LoadRecord record) {
        this.id = record.id();
        this.requestId = record.requestId();
        this.spec = record.spec();
        this.status = record.status();
    }

    LoadRecord record() {
        return new LoadRecord(id, requestId, spec, status);
    }

    boolean cron() {
        return spec.policy() == LoadPolicy.CRON;
    }

    /** A Once load is over when it has ended; a Cron load only when cancelled. */
    boolean over() {
        return cron() ? status.phase() == DataLoadPhase.CANCELLED : status.phase().ended();
    }
}
