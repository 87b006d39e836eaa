package io.granary.kit.client;

import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live workers as the metadata-service knows them, for placement, and the ones this process saw fail, passed
 * over for a while so placement picks the next owner at once instead of waiting for the metadata-service to notice
 * missed heartbeats. It re-reads the list every {@code refreshEvery} on a thread of its own, and its owner also on
 * every membership event ({@link #refresh}).
 */
public final class LiveWorkers implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LiveWorkers.class);

    private final MetadataClient metadata;
    private final Duration suspectFor;
    private final Clock clock;
    private final Map<String, Instant> suspects = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "live-workers");
        thread.setDaemon(true);
        return thread;
    });
    private volatile List<Worker> workers = List.of();

    /** Reads the workers once before it returns, so the first read finds them. */
    public LiveWorkers(MetadataClient metadata, Duration suspectFor, Duration refreshEvery, Clock clock) {
        this.metadata = metadata;
        this.suspectFor = suspectFor;
        this.clock = clock;
        refresh();
        long every = refreshEvery.toMillis();
        timer.scheduleWithFixedDelay(this::refresh, every, every, TimeUnit.MILLISECONDS);
    }

    /** Re-reads the workers; on failure keeps the last list (a metadata-service restart must not stop reads). */
    public void refresh() {
        try {
            workers = List.copyOf(metadata.workers());
        } catch (RuntimeException e) {
            LOG.debugf("workers not re-read (kept %d): %s", workers.size(), e.getMessage());
        }
    }

    /** The owners of a block, best first: placement over the live workers not suspected now. */
    public List<Worker> owners(String blockId, Map<String, String> nodeSelector, Integer replicas) {
        Instant now = clock.instant();
        suspects.values().removeIf(until -> until.isBefore(now));
        List<Worker> trusted = suspects.isEmpty() ? workers
                : workers.stream().filter(worker -> !suspects.containsKey(worker.id())).toList();
        return RendezvousPlacement.owners(blockId, trusted, nodeSelector, replicas == null ? 1 : replicas);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    public void suspect(Worker worker, Throwable why) {
        if (suspects.put(worker.id(), clock.instant().plus(suspectFor)) == null) {
            LOG.warnf("worker %s at %s failed (%s); reading around it for %s", worker.id(), worker.address(), why,
                    suspectFor);
        }
    }
}
