package io.granary.kit.client;

import io.granary.contracts.block.LocalReads;
import io.granary.contracts.worker.Worker;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads served here (the gateway, the FUSE client) from a worker's block files (short-circuit) never reach that
 * worker, yet its eviction and admission policies must see them, or it evicts the blocks read most, and so must its
 * hit ratio. They are counted here and reported to each worker by {@link #flush}, every
 * {@code granary.read.report-interval} on a Vert.x timer ({@link #every}: Quarkus' scheduler runs nothing more often
 * than once a second, and an epoch plan's prefetch runs ahead of the position these reports give). Best effort: a
 * report lost with its worker only ages those blocks.
 */
public final class LocalReadReports {

    private static final Logger LOG = Logger.getLogger(LocalReadReports.class);
    /** Distinct blocks per report, so a burst cannot grow a batch without bound; reads past it go unreported. */
    static final int MAX_BLOCKS = 10_000;

    private final Map<Target, Pending> pending = new ConcurrentHashMap<>();
    private final BlockClient blocks;
    private Vertx vertx;
    private long timer = -1;

    public LocalReadReports(BlockClient blocks) {
        this.blocks = blocks;
    }

    /** Flushes every {@code interval} from now on, until {@link #close}. */
    public LocalReadReports every(Vertx vertx, Duration interval) {
        this.vertx = vertx;
        this.timer = vertx.setPeriodic(interval.toMillis(), id -> flush());
        return this;
    }

    /** Stops the timer and sends what is left. */
    public void close() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        flush();
    }

    /**
     * A read of {@code bytes} of {@code blockId} sent from {@code owner}'s file; {@code filled}: the owner filled it
     * for this read.
     */
    public void read(Worker owner, String dataset, String blockId, long bytes, boolean filled) {
        // compute: atomic with the flush's remove, so no read lands in a batch already sent
        pending.compute(new Target(owner.id(), owner.address(), dataset),
                (target, batch) -> (batch == null ? new Pending(owner) : batch).add(blockId, bytes, filled));
    }

    /** Sends what was counted since the last flush, a report per worker and dataset. */
    public void flush() {
        for (Target target : List.copyOf(pending.keySet())) {
            Pending batch = pending.remove(target);
            if (batch != null) {
                blocks.reportReads(batch.worker, target.dataset(), new LocalReads(batch.hits, batch.misses,
                        batch.bytes)).onFailure(failure -> LOG.debugf("reads not reported to %s: %s",
                        target.workerId(), failure.getMessage()));
            }
        }
    }

    /** Where a batch goes; the address is kept as it was at the read (a worker that moved is a new one). */
    private record Target(String workerId, String address, String dataset) {
    }

    /** Only touched inside {@code compute} or after its removal, so never by two threads at once. */
    private static final class Pending {
        final Worker worker;
        final Map<String, Integer> hits = new HashMap<>();
        int misses;
        long bytes;

        Pending(Worker worker) {
            this.worker = worker;
        }

        Pending add(String blockId, long read, boolean filled) {
            bytes += read;
            if (filled) {
                misses++;
            } else if (hits.size() < MAX_BLOCKS || hits.containsKey(blockId)) {
                hits.merge(blockId, 1, Integer::sum);
            }
            return this;
        }
    }
}
