package io.granary.block.rebalance;

import io.granary.block.config.BlockConfig;
import io.granary.block.drain.WorkerDrain;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.MetadataClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.PreDestroy;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * A worker joining takes its share at once, not block by block on its misses: when the owning workers change,
 * every worker hands the blocks it holds and no longer owns to their owners ({@link BlockMover}, paced to
 * {@code move-rate}) and drops its copy once the owner holds it. Until then a read placed on the new owner takes the
 * block from here by hand-over. A membership is acted on once it held for two looks in a row, so a worker missing
 * one heartbeat does not send blocks away and back; a pass stops when the membership changes under it (its
 * owners may be leaving), and the next pass starts from the new one.
 */
@Startup  // its counters are there, at zero, from the start
@ApplicationScoped
public class Rebalancer {

    private static final Logger LOG = Logger.getLogger(Rebalancer.class);

    private final BlockStore store;
    private final MetadataClient metadata;
    private final BlockMover mover;
    private final WorkerDrain drain;
    private final String self;
    private final Counter blocksMoved;
    private final Counter bytesMoved;
    private final AtomicBoolean running = new AtomicBoolean();
    private final ExecutorService runner = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "rebalance");
        thread.setDaemon(true);
        return thread;
    });
    /** The owning workers at the last look, and those the last pass ran for. */
    private volatile Set<String> seen = Set.of();
    private volatile Set<String> settled = Set.of();

    Rebalancer(BlockStore store, @RestClient MetadataClient metadata, BlockMover mover,
               WorkerDrain drain, BlockConfig config, MeterRegistry metrics) {
        this.store = store;
        this.metadata = metadata;
        this.mover = mover;
        this.drain = drain;
        this.self = config.workerId();
        this.blocksMoved = Counter.builder("granary.block.rebalance.blocks")
                .description("Blocks handed to the workers that own them now, and dropped here").register(metrics);
        this.bytesMoved = Counter.builder("granary.block.rebalance.bytes")
                .description("Bytes of those blocks").baseUnit("bytes").register(metrics);
    }

    @Scheduled(every = "${granary.block.heartbeat-interval}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void look() {
        if (mover.rate() <= 0 || drain.status() != null) {
            return;
        }
        List<Worker> all;
        try {
            all = metadata.workers();
        } catch (RuntimeException e) {  // the metadata-service away: look again next time
            return;
        }
        Set<String> owning = all.stream().filter(Worker::owns).map(Worker::id)
                .collect(Collectors.toCollection(TreeSet::new));
        boolean held = owning.equals(seen);
        seen = owning;  // a pass under way stops once this is no longer what it ran for
        if (running.get() || !held || owning.equals(settled) || !owning.contains(self)) {
            return;
        }
        settled = owning;
        running.set(true);
        runner.execute(() -> {
            try {
                pass(all);
            } finally {
                running.set(false);
            }
        });
    }

    private void pass(List<Worker> all) {
        List<BlockMover.Move> moves = new ArrayList<>();
        for (StoredBlock block : store.blocks()) {
            List<Worker> owners = mover.owners(block, all);
            if (!owners.isEmpty() && owners.stream().noneMatch(owner -> owner.id().equals(self))) {
                moves.add(new BlockMover.Move(block, owners));
            }
        }
        if (moves.isEmpty()) {
            return;
        }
        LOG.infof("worker %s: handing %d blocks to the workers that own them now", self, moves.size());
        Set<String> ranFor = settled;
        mover.move(moves, () -> drain.status() == null && seen.equals(ranFor)
                        && !Thread.currentThread().isInterrupted(),
                (taken, lost) -> taken.forEach(block -> {
                    if (store.drop(block)) {
                        blocksMoved.increment();
                        bytesMoved.increment(block.length());
                    }
                }));
        if (!seen.equals(ranFor)) {
            settled = Set.of();  // cut short: should the membership come back to this one, the pass runs again
        }
    }

    @PreDestroy
    void close() {
        runner.shutdownNow();
    }
}
