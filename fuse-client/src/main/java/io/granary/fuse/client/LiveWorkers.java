package io.granary.fuse.client;

import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.MetadataClient;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live workers as the metadata-service knows them, and the ones this client saw fail, passed over for a while
 * so placement picks the next owner at once.
 */
public final class LiveWorkers {

    private static final Logger LOG = Logger.getLogger(LiveWorkers.class);

    private final MetadataClient metadata;
    private final Duration suspectFor;
    private final Clock clock;
    private final Map<String, Instant> suspects = new ConcurrentHashMap<>();
    private volatile List<Worker> workers = List.of();

    public LiveWorkers(MetadataClient metadata, Duration suspectFor, Clock clock) {
        this.metadata = metadata;
        this.suspectFor = suspectFor;
        this.clock = clock;
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

    public void suspect(Worker worker, Throwable why) {
        if (suspects.put(worker.id(), clock.instant().plus(suspectFor)) == null) {
            LOG.warnf("worker %s at %s failed (%s); reading around it for %s", worker.id(), worker.address(), why,
                    suspectFor);
        }
    }
}
