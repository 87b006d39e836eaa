package io.granary.preload.service;

import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.Executors;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * DataLoads waiting their turn: the highest priority first, then first come. A Once load joins at once, a Cron
 * load at its next time; a cancelled load never joins (and is skipped if it was cancelled while waiting).
 */
final class DataLoadQueue implements AutoCloseable {

    private final PriorityBlockingQueue<Queued> queue = new PriorityBlockingQueue<>(16, Queued.ORDER);
    private final AtomicLong arrivals = new AtomicLong();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            DataLoads.daemon("dataload-cron"));

    void schedule(TrackedLoad load) {
        if (load.cancelled) {
            return;
        }
        if (!load.cron()) {
            add(load);
            return;
        }
        Duration wait = CronSchedules.untilNext(CronSchedules.parse(load.spec.schedule()));
        load.nextRun = timers.schedule(() -> add(load), wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The next load to run; waits until there is one. */
    TrackedLoad take() throws InterruptedException {
        while (true) {
            TrackedLoad load = queue.take().load();
            if (!load.cancelled) {
                return load;
            }
        }
    }

    private void add(TrackedLoad load) {
        queue.add(new Queued(load, load.spec.priority(), arrivals.incrementAndGet()));
    }

    @Override
    public void close() {
        timers.shutdownNow();
    }

    private record Queued(TrackedLoad load, int priority, long arrival) {
        static final Comparator<Queued> ORDER = Comparator.comparingInt(Queued::priority).reversed()
                .thenComparingLong(Queued::arrival);
    }
}
