package io.granary.kit.client;

import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live workers as the metadata-service knows them, for placement, less the ones this process saw fail
 * ({@link Suspects}). It re-reads the list every {@code refreshEvery} on a thread of its own, and its owner also on
 * every membership event ({@link #refresh}).
 */
public final class LiveWorkers implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(LiveWorkers.class);

    private final MetadataClient metadata;
    private final Suspects suspects;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "live-workers");
        thread.setDaemon(true);
        return thread;
    });
    private volatile List<Worker> workers = List.of();

    /** Reads the workers once before it returns, so the first read finds them. */
    public LiveWorkers(MetadataClient metadata, Suspects suspects, Duration refreshEvery) {
        this.metadata = metadata;
        this.suspects = suspects;
        refresh();
        long every = refreshEvery.toMillis();
        timer.scheduleWithFixedDelay(this::refresh, every, every, TimeUnit.MILLISECONDS);
    }

    /** Re-reads the workers; on failure keeps the last list (a metadata-service restart must not stop reads). */
    public void refresh() {
        try {
            workers = List.copyOf(metadata.workers());
            suspects.heardFrom(workers);
        } catch (RuntimeException e) {
            LOG.debugf("workers not re-read (kept %d): %s", workers.size(), e.getMessage());
        }
    }

    /** The owners of a block, best first: placement over the live workers not suspected now. */
    public List<Worker> owners(String blockId, Map<String, String> nodeSelector, Integer replicas) {
        return RendezvousPlacement.owners(blockId, suspects.trusted(workers), nodeSelector,
                replicas == null ? 1 : replicas);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
