package io.granary.fuse.client;

import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

/** The live workers are re-read on a timer (and on every membership event, by the mount's invalidator). */
@ApplicationScoped
public class WorkerRefresh {

    private final LiveWorkers workers;

    WorkerRefresh(LiveWorkers workers) {
        this.workers = workers;
    }

    @Scheduled(every = "${granary.fuse.membership-refresh}", delay = 0,
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void refresh() {
        workers.refresh();
    }
}
