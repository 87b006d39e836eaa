package io.granary.kit.client;

import io.granary.contracts.worker.Worker;
import io.granary.kit.config.ReadConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The workers this process saw fail, passed over for {@code suspect-for}: placement picks the next owner at once
 * instead of waiting for the metadata-service to notice missed heartbeats. {@link BlockClient} suspects a worker
 * when a call fails by its fault; {@link LiveWorkers} leaves suspects out of placement.
 */
@ApplicationScoped
public class Suspects {

    private static final Logger LOG = Logger.getLogger(Suspects.class);

    private final Duration suspectFor;
    private final Clock clock;
    private final Map<String, Instant> until = new ConcurrentHashMap<>();

    @Inject
    Suspects(ReadConfig config) {
        this(config.suspectFor(), Clock.systemUTC());
    }

    public Suspects(Duration suspectFor, Clock clock) {
        this.suspectFor = suspectFor;
        this.clock = clock;
    }

    public void suspect(Worker worker, Throwable why) {
        if (until.put(worker.id(), clock.instant().plus(suspectFor)) == null) {
            LOG.warnf("worker %s at %s failed (%s); reading around it for %s", worker.id(), worker.address(), why,
                    suspectFor);
        }
    }

    /** The workers not suspected now, in the order given. */
    public List<Worker> trusted(List<Worker> workers) {
        Instant now = clock.instant();
        until.values().removeIf(expiry -> expiry.isBefore(now));
        return until.isEmpty() ? workers : workers.stream().filter(worker -> !until.containsKey(worker.id())).toList();
    }
}
