package io.granary.block.drain;

import io.granary.block.client.DatasetDirectory;
import io.granary.block.config.BlockConfig;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.TieredStore;
import io.granary.contracts.block.BlockLoadRequest;
import io.granary.contracts.block.BlockLoadResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.client.Workers;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * This worker leaving without losing the cache. Once asked, its heartbeats say it is draining, so placement passes
 * it over; each block it holds is then asked of the owner placement gives without it ({@code POST /blocks/load}),
 * whose fill takes the block from here by hand-over rather than from the under-store. When every block is handed
 * over, or the deadline passes, it drops what it holds and is Drained: it may be stopped, or asked to rejoin.
 */
@ApplicationScoped
public class WorkerDrain {

    private static final Logger LOG = Logger.getLogger(WorkerDrain.class);
    /** Blocks per load request: a batch a new owner fills with its own parallelism. */
    private static final int BATCH = 64;

    private final TieredStore store;
    private final DatasetDirectory datasets;
    private final MetadataClient metadata;
    private final Workers workers;
    private final String self;
    private final Duration deadline;
    private final ExecutorService runner = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "drain");
        thread.setDaemon(true);
        return thread;
    });
    private volatile DrainStatus status;

    WorkerDrain(TieredStore store, DatasetDirectory datasets, @RestClient MetadataClient metadata, Workers workers,
                BlockConfig config) {
        this.store = store;
        this.datasets = datasets;
        this.metadata = metadata;
        this.workers = workers;
        this.self = config.workerId();
        this.deadline = config.drainDeadline();
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

    /** Back into placement: a drain under way stops; blocks already dropped come back by hand-over or fills. */
    public synchronized void rejoin() {
        status = null;
    }

    private void run(DrainStatus begun) {
        List<StoredBlock> held = store.blocks();
        update(begun, held.size(), 0, 0, null);
        int moved = 0;
        int failed = 0;
        try {
            // Heartbeats carry the draining state; wait one so no new owner still counts this worker as one.
            List<Worker> owners = awaitPassedOver();
            Map<Target, List<BlockRef>> batches = new LinkedHashMap<>();
            for (StoredBlock block : held) {
                List<Worker> to = newOwners(block, owners);
                if (to.isEmpty()) {
                    failed++;
                }
                for (int i = 0; i < to.size(); i++) {
                    batches.computeIfAbsent(new Target(to.get(i), block.key().dataset(), i == 0),
                            key -> new ArrayList<>())
                            .add(new BlockRef(block.path(), block.etag(), block.key().id().index()));
                }
            }
            for (Map.Entry<Target, List<BlockRef>> batch : batches.entrySet()) {
                List<BlockRef> refs = batch.getValue();
                for (int from = 0; from < refs.size() && current(begun) && Instant.now().isBefore(begun.deadline());
                     from += BATCH) {
                    List<BlockRef> part = refs.subList(from, Math.min(refs.size(), from + BATCH));
                    int loaded = handOver(batch.getKey(), part);
                    if (batch.getKey().first()) {  // a block counts once, by its first owner, however many replicas
                        moved += loaded;
                        failed += part.size() - loaded;
                        update(begun, held.size(), moved, failed, null);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("drain of %s stopped: %s", self, e.getMessage());
        }
        if (current(begun)) {  // done, or past the deadline: what is not handed over is dropped with the rest
            // Everything goes, blocks filled while readers still counted this worker an owner included.
            held.stream().map(block -> block.key().dataset()).distinct().forEach(dataset -> store.evict(dataset, ""));
            update(begun, held.size(), moved, held.size() - moved, Instant.now());
            LOG.infof("worker %s drained: %d of %d blocks handed over, %d lost", self, moved, held.size(),
                    held.size() - moved);
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

    /** The owners placement gives the block without this worker (a block of a dataset gone has none). */
    private List<Worker> newOwners(StoredBlock block, List<Worker> others) {
        try {
            DatasetSpec spec = datasets.spec(block.key().dataset());
            return RendezvousPlacement.owners(block.key().id().toString(), others, spec.nodeSelector(),
                    spec.replicas() == null ? 1 : spec.replicas());
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /** Asks the new owner to hold the blocks; answers how many it holds now. */
    private int handOver(Target target, List<BlockRef> refs) {
        try {
            BlockLoadResult result = workers.at(target.owner().address())
                    .load(new BlockLoadRequest(target.dataset(), refs, false));
            return result.cached() + result.filled();
        } catch (RuntimeException e) {  // refused or unreachable: those blocks are not moved
            LOG.warnf("worker %s did not take %d blocks of %s: %s", target.owner().id(), refs.size(),
                    target.dataset(), e.getMessage());
            return 0;
        }
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

    /** @param first the block's first owner among its new ones: where its move is counted */
    private record Target(Worker owner, String dataset, boolean first) {
    }

    @PreDestroy
    void close() {
        runner.shutdownNow();
    }
}
