package io.granary.metadata.service;

import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.worker.Worker;
import io.granary.metadata.config.MetadataConfig;
import io.granary.metadata.events.DatasetEventPublisher;
import io.granary.metadata.store.CachedBytes;
import io.granary.metadata.store.MetadataCaches;
import io.granary.metadata.store.WorkerRegistry;
import io.granary.metadata.store.WorkerState;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Worker membership from heartbeats. A worker is live from its first heartbeat until it misses
 * {@code missed-heartbeats} in a row, counted in its own period (the heartbeat says it) and only while others were
 * heard ({@link Silence}: a rebalance stops everyone's heartbeats at once); joins and departures go out
 * on {@code granary.dataset.events} so gateways and preload replicas recompute placement. Only the cluster
 * coordinator sweeps, every {@code sweep-interval}, so one replica announces a loss.
 */
@ApplicationScoped
public class Membership {

    private static final Logger LOG = Logger.getLogger(Membership.class);

    private final WorkerRegistry workers;
    private final CachedBytes cachedBytes;
    private final MetadataCaches caches;
    private final DatasetEventPublisher events;
    private final Clock clock;
    private final Duration sweepInterval;
    private final int missed;
    private final Duration quietLimit;

    Membership(WorkerRegistry workers, CachedBytes cachedBytes, MetadataCaches caches, DatasetEventPublisher events, Clock clock,
               MetadataConfig config) {
        this.workers = workers;
        this.cachedBytes = cachedBytes;
        this.caches = caches;
        this.events = events;
        this.clock = clock;
        this.sweepInterval = config.sweepInterval();
        this.missed = config.missedHeartbeats();
        this.quietLimit = config.quietLimit();
    }

    public void heartbeat(HeartbeatEvent beat) {
        Worker worker = new Worker(beat.workerId(), beat.node(), beat.address(), beat.labels(), beat.levels(),
                clock.instant(), true, beat.startedAt(), beat.hits(), beat.misses(), beat.bytesServed(),
                beat.drain());
        Optional<WorkerState> before = workers.put(new WorkerState(worker, beat.datasets(), beat.interval()));
        if (before.isEmpty() || !before.get().worker().live()) {
            LOG.infof("worker %s on %s joined", worker.id(), worker.node());
            events.publish(DatasetEvent.membership(DatasetEvent.Type.WORKER_JOINED, worker.id(), clock.instant()));
        } else if (before.get().worker().owns() != worker.owns()) {
            // A drain begun or given up: placement changes now, not when readers next re-read the workers.
            LOG.infof("worker %s %s", worker.id(), worker.owns() ? "rejoined" : "is draining");
            events.publish(DatasetEvent.membership(worker.owns() ? DatasetEvent.Type.WORKER_JOINED
                    : DatasetEvent.Type.WORKER_LEFT, worker.id(), clock.instant()));
        }
    }

    /** How long a worker may stay silent before it is dead: {@code missed-heartbeats} of its own periods. */
    Duration deadAfter(WorkerState state) {
        return (state.interval() == null ? sweepInterval : state.interval()).multipliedBy(missed);
    }

    public List<Worker> workers() {
        return workers.all().stream().map(WorkerState::worker).toList();
    }

    @Scheduled(every = "${granary.metadata.sweep-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void sweep() {
        if (!caches.coordinator()) {
            return;
        }
        Instant now = clock.instant();
        Silence silence = new Silence(workers.all().stream().map(state -> state.worker().lastHeartbeat())
                .max(Instant::compareTo).orElse(now), now, quietLimit);
        List<WorkerState> lost = workers.updateEach(state -> {
            Worker w = state.worker();
            return w.live() && silence.gone(w.lastHeartbeat(), deadAfter(state))
                    ? Optional.of(new WorkerState(w.left(), state.reads(), state.interval()))
                    : Optional.empty();
        });
        for (WorkerState state : lost) {
            LOG.warnf("worker %s missed its heartbeats since %s: left", state.worker().id(), state.worker().lastHeartbeat());
            cachedBytes.dropWorker(state.worker().node(), state.worker().id());
            events.publish(DatasetEvent.membership(DatasetEvent.Type.WORKER_LEFT, state.worker().id(), clock.instant()));
        }
    }
}
