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
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * The workers this process saw fail, passed over for {@code suspect-for}: placement picks the next owner at once
 * instead of waiting for the metadata-service to notice missed heartbeats. {@link BlockClient} suspects a worker
 * when a call fails by its fault; {@link LiveWorkers} leaves suspects out of placement. A worker suspected for its
 * silence (its node cut off, or its process restarted) is trusted again as soon as it answers a liveness check
 * ({@link BlockClient} asks every second) or the metadata-service hears its heartbeat again, not only once
 * {@code suspect-for} ran out: its blocks are still in its cache.
 */
@ApplicationScoped
public class Suspects {

    private static final Logger LOG = Logger.getLogger(Suspects.class);
    private static final Duration LONGEST_SILENCE = Duration.ofMinutes(10);

    private final Duration suspectFor;
    private final Clock clock;
    private final Map<String, Suspicion> until = new ConcurrentHashMap<>();
    /** Workers whose liveness is being checked: passed over until the check answers, by every read here. */
    private final Set<String> doubted = ConcurrentHashMap.newKeySet();

    /**
     * @param silent it gave nothing (a timeout, no connection, a reset: its node cut off, its process stopped), rather
     *               than a failed answer
     */
    private record Suspicion(Worker worker, Instant since, Instant until, boolean silent) {
    }

    @Inject
    Suspects(ReadConfig config) {
        this(config.suspectFor(), Clock.systemUTC());
    }

    public Suspects(Duration suspectFor, Clock clock) {
        this.suspectFor = suspectFor;
        this.clock = clock;
    }

    public void suspect(Worker worker, Throwable why) {
        Instant now = clock.instant();
        Throwable cause = why instanceof CompletionException && why.getCause() != null ? why.getCause() : why;
        // Only an owner's answer is a failure it may make again; no answer (a timeout, a refused or reset
        // connection) says it is gone for now, until it is heard from.
        boolean silent = !(cause instanceof WorkerCallFailed);
        if (until.put(worker.id(), new Suspicion(worker, now, now.plus(suspectFor), silent)) == null) {
            LOG.warnf("worker %s at %s failed (%s); reading around it for %s", worker.id(), worker.address(), why,
                    suspectFor);
        }
    }

    /**
     * Passes the worker over while its liveness is checked (a read found it silent): the reads that start meanwhile
     * go to the next owner at once instead of each waiting out the hedge delay on it.
     *
     * @return false when it is being checked already
     */
    public boolean doubt(Worker worker) {
        return doubted.add(worker.id());
    }

    /**
     * The liveness check of a doubted worker, or of one suspected for its silence, answered: trusted again, or, when
     * it did not answer, suspected for {@code why} (null: its silence goes on, {@link #stillSilent}).
     */
    public void checked(Worker worker, boolean alive, Throwable why) {
        if (!alive) {
            if (why != null) {
                suspect(worker, why);
            } else {
                stillSilent(worker);
            }
        } else {
            Suspicion suspicion = until.get(worker.id());
            if (suspicion != null && suspicion.silent() && until.remove(worker.id(), suspicion)) {
                LOG.infof("worker %s answers again: reading from it again", worker.id());
            }
        }
        doubted.remove(worker.id());
    }

    /**
     * A worker suspected for its silence that failed its check again stays suspected for {@code suspect-for} from
     * now: a node cut off for longer than that is not tried again by a read (which waits out the connect timeout on
     * it) each time its suspicion would have run out. Up to {@link #LONGEST_SILENCE}, by which time the
     * metadata-service has long listed it as left, and its checks stop with its suspicion.
     */
    private void stillSilent(Worker worker) {
        Instant now = clock.instant();
        until.computeIfPresent(worker.id(), (id, suspicion) -> suspicion.silent()
                && now.isBefore(suspicion.since().plus(LONGEST_SILENCE))
                ? new Suspicion(suspicion.worker(), suspicion.since(), now.plus(suspectFor), true) : suspicion);
    }

    /** The workers suspected for their silence now, whose liveness is checked again until they answer. */
    public List<Worker> silent() {
        return until.values().stream().filter(Suspicion::silent).map(Suspicion::worker).toList();
    }

    /** Whether the worker's liveness is being checked now. */
    public boolean doubted(Worker worker) {
        return doubted.contains(worker.id());
    }

    /** Forgets the silence of workers whose heartbeats were heard after it began (as the metadata-service lists). */
    public void heardFrom(List<Worker> workers) {
        for (Worker worker : workers) {
            Suspicion suspicion = until.get(worker.id());
            if (suspicion != null && suspicion.silent() && worker.live() && worker.lastHeartbeat() != null
                    && worker.lastHeartbeat().isAfter(suspicion.since()) && until.remove(worker.id(), suspicion)) {
                LOG.infof("worker %s is heard from again: reading from it again", worker.id());
            }
        }
    }

    /** The workers neither suspected nor doubted now, in the order given. */
    public List<Worker> trusted(List<Worker> workers) {
        Instant now = clock.instant();
        until.values().removeIf(suspicion -> suspicion.until().isBefore(now));
        return until.isEmpty() && doubted.isEmpty() ? workers : workers.stream()
                .filter(worker -> !until.containsKey(worker.id()) && !doubted.contains(worker.id())).toList();
    }
}
