package io.granary.block.drain;

import io.granary.block.config.BlockConfig;
import io.granary.block.rebalance.BlockMover;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.MetadataClient;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * This worker leaving without losing the cache. Once asked, its heartbeats say it is draining, so placement passes
 * it over; each block it holds is then asked of the owner placement gives without it ({@code POST /blocks/fill}),
 * whose fill takes the block from here by hand-over rather than from the under-store. When every block is handed
 * over, or the deadline passes, it drops what it holds and is Drained: it may be stopped, or asked to rejoin. A drain
 * is asked through the REST API, or by SIGTERM when {@code drain-on-stop} is set (a Kubernetes scale-in).
 */
@ApplicationScoped
public class WorkerDrain {

    private static final Logger LOG = Logger.getLogger(WorkerDrain.class);

    private final BlockStore store;
    private final MetadataClient metadata;
    private final BlockMover mover;
    private final String self;
    private final Duration deadline;
    private final boolean drainOnStop;
    private final Duration heartbeat;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "drain");
        thread.setDaemon(true);
        return thread;
    });
    private volatile DrainStatus status;

    WorkerDrain(BlockStore store, @RestClient MetadataClient metadata, BlockMover mover,
                BlockConfig config) {
        this.store = store;
        this.metadata = metadata;
        this.mover = mover;
        this.self = config.workerId();
        this.deadline = config.drainDeadline();
        this.drainOnStop = config.drainOnStop();
        this.heartbeat = config.heartbeatInterval();
    }

    /** The drain under way or done; null when this worker is not leaving. */
    public DrainStatus status() {
        return status;
    }

    /** Starts draining (a drain already begun goes on) and answers where it is. */
    public synchronized DrainStatus start() {
        if (status == null) {
            Instant now = Instant.now();
            status = new DrainStatus(DrainStatus.Phase.DRAINING, 0, 0, 0, now, now.plus(deadline), null);
            DrainStatus begun = status;
            runner.execute(() -> run(begun));
        }
        return status;
    }

    /**
     * A SIGTERM with {@code drain-on-stop}: drains before the service stops. Observed in the shutdown's delay phase,
     * while the HTTP server still serves the new owners' hand-overs and heartbeats still go out.
     */
    void drainBeforeStop(@Observes ShutdownDelayInitiatedEvent stopping) {
        if (!drainOnStop) {
            return;
        }
        DrainStatus begun = start();
        LOG.infof("worker %s stopping: draining first (deadline %s)", self, begun.deadline());
        try {
            while (status != null && status.phase() == DrainStatus.Phase.DRAINING
                    && Instant.now().isBefore(begun.deadline().plusSeconds(5))) {
                Thread.sleep(200);
            }
            Thread.sleep(heartbeat.toMillis());  // one more heartbeat: the membership hears it Drained
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Back into placement: a drain under way stops; blocks already dropped come back by hand-over or fills. */
    public synchronized void rejoin() {
        status = null;
    }

    private void run(DrainStatus begun) {
        List<StoredBlock> held = store.blocks();
        update(begun, held.size(), 0, 0, null);
        int[] moved = {0};
        int[] failed = {0};
        try {
            // Heartbeats carry the draining state; wait one so no new owner still counts this worker as one.
            List<Worker> owners = awaitPassedOver();
            List<BlockMover.Move> moves = held.stream()
                    .map(block -> new BlockMover.Move(block, mover.owners(block, owners))).toList();
            mover.move(moves, () -> current(begun) && Instant.now().isBefore(begun.deadline()),
                    (taken, lost) -> {
                        moved[0] += taken.size();
                        failed[0] += lost;
                        update(begun, held.size(), moved[0], failed[0], null);
                    });
        } catch (RuntimeException e) {
            LOG.warnf("drain of %s stopped: %s", self, e.getMessage());
        }
        if (current(begun)) {  // done, or past the deadline: what is not handed over is dropped with the rest
            // Everything goes, blocks filled while readers still counted this worker an owner included.
            held.stream().map(block -> block.key().dataset()).distinct().forEach(dataset -> store.evict(dataset, ""));
            update(begun, held.size(), moved[0], held.size() - moved[0], Instant.now());
            LOG.infof("worker %s drained: %d of %d blocks handed over, %d lost", self, moved[0], held.size(),
                    held.size() - moved[0]);
        }
    }

    private List<Worker> awaitPassedOver() {
        for (int i = 0; i < 60; i++) {
            List<Worker> all = metadata.workers();
            boolean seen = all.stream().anyMatch(worker -> worker.id().equals(self) && worker.drain() != null);
            if (seen) {
                return all.stream().filter(worker -> !worker.id().equals(self)).toList();
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new IllegalStateException("the metadata-service never saw this worker draining");
    }

    /** Whether this drain still stands (no rejoin since it began). */
    private boolean current(DrainStatus begun) {
        DrainStatus now = status;
        return now != null && now.startedAt().equals(begun.startedAt());
    }

    private synchronized void update(DrainStatus begun, int blocks, int moved, int failed, Instant finished) {
        if (status != null && status.startedAt().equals(begun.startedAt())) {
            status = new DrainStatus(finished == null ? DrainStatus.Phase.DRAINING : DrainStatus.Phase.DRAINED,
                    blocks, moved, failed, begun.startedAt(), begun.deadline(), finished);
        }
    }

    @PreDestroy
    void close() {
        runner.shutdownNow();
    }
}
