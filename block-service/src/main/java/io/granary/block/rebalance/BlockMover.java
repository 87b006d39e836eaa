package io.granary.block.rebalance;

import io.granary.block.client.DatasetDirectory;
import io.granary.block.config.BlockConfig;
import io.granary.block.store.StoredBlock;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Hands blocks this worker holds to the workers that own them now: each owner is asked to fill them
 * ({@code POST /blocks/fill}, naming this worker their holder), and its fill takes them from here by hand-over, not
 * from the under-store. Batches of
 * at most 64 blocks and a second's worth of {@code move-rate} go one at a time, paced to that rate. A drain moves
 * everything; a rebalance moves what a joining worker now owns.
 */
@ApplicationScoped
public class BlockMover {

    private static final Logger LOG = Logger.getLogger(BlockMover.class);
    private static final int BATCH = 64;

    private final BlockClient blockClient;
    private final DatasetDirectory datasets;
    private final long rate;
    private final String self;

    BlockMover(BlockClient blockClient, DatasetDirectory datasets, BlockConfig config) {
        this.self = config.workerId();
        this.blockClient = blockClient;
        this.datasets = datasets;
        this.rate = ByteSize.parse("granary.block.move-rate", config.moveRate());
    }

    /** A block and the workers that should hold it, best first. */
    public record Move(StoredBlock block, List<Worker> owners) {
    }

    /** Progress of a run of moves: blocks their first owner holds now, and blocks none took. */
    public interface Progress {
        void moved(List<StoredBlock> taken, int failed);
    }

    /** Bytes per second moves may take; 0 when unthrottled. */
    public long rate() {
        return rate;
    }

    /** The block's owners among {@code workers}, best first; none when its dataset is gone or unknown. */
    public List<Worker> owners(StoredBlock block, Collection<Worker> workers) {
        try {
            DatasetSpec spec = datasets.spec(block.key().dataset());
            return RendezvousPlacement.owners(block.key().id().toString(), workers, spec.nodeSelector(),
                    spec.replicas() == null ? 1 : spec.replicas());
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    /**
     * Moves the blocks, batch by batch, while {@code go} holds. A block counts as moved once its first owner holds
     * it (replicas beyond the first are asked too, and not counted); a block with no owner counts as failed.
     */
    public void move(List<Move> moves, BooleanSupplier go, Progress progress) {
        Map<Target, List<StoredBlock>> byTarget = new LinkedHashMap<>();
        int orphans = 0;
        for (Move move : moves) {
            if (move.owners().isEmpty()) {
                orphans++;
            }
            for (int i = 0; i < move.owners().size(); i++) {
                byTarget.computeIfAbsent(new Target(move.owners().get(i), move.block().key().dataset(), i == 0),
                        key -> new ArrayList<>()).add(move.block());
            }
        }
        if (orphans > 0) {
            progress.moved(List.of(), orphans);
        }
        long started = System.nanoTime();
        long sent = 0;
        // Replicas first: a block is dropped here once its first owner holds it, and a replica asked after that would
        // find no one to hand it over.
        List<Map.Entry<Target, List<StoredBlock>>> ordered = byTarget.entrySet().stream()
                .sorted(Comparator.comparing(entry -> entry.getKey().first())).toList();
        for (Map.Entry<Target, List<StoredBlock>> entry : ordered) {
            List<StoredBlock> blocks = entry.getValue();
            int from = 0;
            while (from < blocks.size() && go.getAsBoolean()) {
                int to = batchEnd(blocks, from);
                List<StoredBlock> batch = blocks.subList(from, to);
                int held = handOver(entry.getKey(), batch);
                if (entry.getKey().first()) {
                    // Which of a partly taken batch arrived is not said: none of it counts as moved.
                    progress.moved(held == batch.size() ? List.copyOf(batch) : List.of(), batch.size() - held);
                }
                sent += batch.stream().mapToLong(StoredBlock::length).sum();
                pace(started, sent);
                from = to;
            }
        }
    }

    /** The end of the batch starting at {@code from}: at most 64 blocks and a second of the rate (one at least). */
    private int batchEnd(List<StoredBlock> blocks, int from) {
        long bytes = 0;
        int to = from;
        while (to < blocks.size() && to - from < BATCH) {
            bytes += blocks.get(to).length();
            to++;
            if (rate > 0 && bytes >= rate) {
                break;
            }
        }
        return to;
    }

    /** Sleeps until {@code sent} bytes since {@code started} are within the rate. */
    private void pace(long started, long sent) {
        if (rate <= 0) {
            return;
        }
        long due = started + TimeUnit.SECONDS.toNanos(1) * sent / rate;
        long wait = due - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Asks the owner to hold the blocks; answers how many it holds now. */
    private int handOver(Target target, List<StoredBlock> blocks) {
        List<BlockRef> refs = blocks.stream()
                .map(block -> new BlockRef(block.path(), block.etag(), block.key().id().index())).toList();
        try {
            BlockFillResult result = BlockClient.await(blockClient.fill(target.owner(),
                    new BlockFillRequest(target.dataset(), refs, false, self)));
            return result.cached() + result.filled();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (RuntimeException e) {  // refused or unreachable: those blocks are not moved
            LOG.warnf("worker %s did not take %d blocks of %s: %s", target.owner().id(), refs.size(),
                    target.dataset(), e.getMessage());
            return 0;
        }
    }

    /** @param first the blocks' first owner: where their move is counted */
    private record Target(Worker owner, String dataset, boolean first) {
    }
}
