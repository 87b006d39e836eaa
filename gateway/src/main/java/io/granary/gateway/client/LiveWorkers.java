package io.granary.gateway.client;

import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.client.MetadataClient;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live workers, as the metadata-service knows them, re-read on a timer and on every membership event; and
 * the workers this gateway saw fail, passed over for a while so placement picks the next one at once instead of
 * waiting for the metadata-service to notice missed heartbeats.
 */
@ApplicationScoped
@Startup
public class LiveWorkers {

    private static final Logger LOG = Logger.getLogger(LiveWorkers.class);

    private final MetadataClient metadata;
    private final Duration suspectFor;
    private final Clock clock = Clock.systemUTC();
    private final Map<String, Instant> suspects = new ConcurrentHashMap<>();
    private volatile List<Worker> workers = List.of();

    LiveWorkers(@RestClient MetadataClient metadata, GatewayConfig config) {
        this.metadata = metadata;
        this.suspectFor = config.read().suspectFor();
    }

    @Scheduled(every = "${granary.gateway.read.membership-refresh}", delay = 0,
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    public void refresh() {
        try {
            workers = List.copyOf(metadata.workers());
        } catch (RuntimeException e) {
            LOG.debugf("workers not re-read (kept %d): %s", workers.size(), e.getMessage());
        }
    }

    /** The owners of a block, best first: placement over the live workers this gateway does not suspect. */
    public List<Worker> owners(String blockId, Map<String, String> nodeSelector, int replicas) {
        Instant now = clock.instant();
        suspects.values().removeIf(until -> until.isBefore(now));
        List<Worker> trusted = suspects.isEmpty() ? workers
                : workers.stream().filter(w -> !suspects.containsKey(w.id())).toList();
        return RendezvousPlacement.owners(blockId, trusted, nodeSelector, replicas);
    }

    /** The worker failed a request: pass it over for a while. */
    public void suspect(Worker worker, Throwable why) {
        if (suspects.put(worker.id(), clock.instant().plus(suspectFor)) == null) {
            LOG.warnf("worker %s at %s failed (%s); reading around it for %s", worker.id(), worker.address(),
                    why.toString(), suspectFor);
        }
    }
}
