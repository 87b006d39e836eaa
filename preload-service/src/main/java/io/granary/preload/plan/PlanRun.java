package io.granary.preload.plan;

import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.plan.EpochPlan;
import io.granary.contracts.plan.PlanPhase;
import io.granary.contracts.plan.PlanProgress;
import io.granary.contracts.plan.PlanStatus;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.vertx.core.Future;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One epoch plan's rolling prefetch. Its files are blocks in read order, each with its owner; each owner is told its
 * part ({@link WorkerPlan}), so it can say how far the reader got and evict first what the epoch read. Then, until the
 * reader reads the last block, reads nothing for {@code expire-after} or the next epoch's plan takes over, the
 * blocks within a window ahead of the reader's position are asked of their owners in order (small batch fills, a few
 * in flight per owner), the window the bytes the store gives in {@code lookahead} at its measured speed: bytes to
 * fill, so it spans as many more of the plan's bytes as the owners hold already.
 */
final class PlanRun implements Runnable {

    private static final Logger LOG = Logger.getLogger(PlanRun.class);
    private static final long CALL_WAIT_MS = 3_000;

    /** The plan's blocks in read order, their owners and how long they are. */
    record Layout(List<BlockRef> blocks, long[] lengths, List<Worker> owners, int[] ownerOf) {
    }

    /** What a run needs of its service: the worker client, the settings, and a tally of what it fetched. */
    record Settings(BlockClient client, Duration lookahead, long minWindow, double maxWindowShare,
                    Duration pollInterval, Duration expireAfter, int batchBlocks, int inFlightPerOwner) {
    }

    interface Tally {
        void fetched(int held, int filled, int failed);

        void ended(PlanPhase phase);
    }

    private final EpochPlan plan;
    private final Layout layout;
    private final Settings settings;
    private final Tally tally;
    /** Bytes of the plan's blocks before each position: the bytes between two positions in one subtraction. */
    private final long[] before;
    private final long maxWindow;
    private final Instant startedAt = Instant.now();

    private volatile PlanPhase phase = PlanPhase.Prefetching;
    private volatile String reason;
    private volatile boolean stopping;
    private volatile int position = -1;
    private volatile Instant lastReadAt;
    private volatile long windowBytes;
    /** The next position not yet asked for. */
    private int next;
    private final AtomicInteger fetched = new AtomicInteger();
    private final AtomicInteger filled = new AtomicInteger();
    private final AtomicLong filledBytes = new AtomicLong();
    /** The share of asked blocks the owners had to fill (the rest they held), smoothed: held ones take no room. */
    private volatile double missShare = 1.0;
    private final AtomicIntegerArray inFlight;
    private final List<List<Integer>> pending = new ArrayList<>();
    /** Positions an owner had no room for yet (the epoch had read nothing it could evict): asked once more. */
    private final ConcurrentLinkedQueue<Integer> again = new ConcurrentLinkedQueue<>();
    private final BitSet askedAgain = new BitSet();
    private Thread thread;

    PlanRun(EpochPlan plan, Layout layout, Settings settings, Tally tally) {
        this.plan = plan;
        this.layout = layout;
        this.settings = settings;
        this.tally = tally;
        int n = layout.blocks().size();
        this.before = new long[n + 1];
        for (int i = 0; i < n; i++) {
            before[i + 1] = before[i] + layout.lengths()[i];
        }
        long capacity = layout.owners().stream().flatMap(owner -> owner.levels().stream())
                .mapToLong(level -> level.quotaBytes()).sum();
        this.maxWindow = Math.max(settings.minWindow(), (long) (capacity * settings.maxWindowShare()));
        this.windowBytes = settings.minWindow();
        this.inFlight = new AtomicIntegerArray(layout.owners().size());
        for (int i = 0; i < layout.owners().size(); i++) {
            pending.add(new ArrayList<>());
        }
    }

    EpochPlan plan() {
        return plan;
    }

    PlanStatus status() {
        return new PlanStatus(plan.id(), plan.dataset(), plan.job(), plan.epoch(), plan.rank(), phase,
                plan.files().size(), layout.blocks().size(), position, fetched.get(), filled.get(), windowBytes,
                startedAt, lastReadAt, reason);
    }

    boolean ended() {
        return phase != PlanPhase.Prefetching;
    }

    /** Stops the prefetch; {@code Replaced} leaves the owners' parts, which the next epoch's plan replaced. */
    void stop(PlanPhase as, String why) {
        if (phase == PlanPhase.Prefetching) {
            phase = as;
            reason = why;
            stopping = true;
            Thread running = thread;
            if (running != null) {
                running.interrupt();
            }
        }
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            if (!stopping) {
                tellOwners();
                prefetch();
            }
        } catch (InterruptedException e) {
            // stopped: the phase says why
        } catch (RuntimeException e) {
            LOG.warnf(e, "epoch plan %s failed", plan.id());
            end(PlanPhase.Failed, e.getMessage());
        } finally {
            Thread.interrupted();
            if (phase != PlanPhase.Replaced) {
                forget();
            }
            tally.ended(phase);
            LOG.infof("epoch plan %s (%s, epoch %d): %s at block %d of %d, %d asked ahead, %d filled%s", plan.id(),
                    plan.dataset(), plan.epoch(), phase, position + 1, layout.blocks().size(), fetched.get(),
                    filled.get(), reason == null ? "" : " (" + reason + ")");
        }
    }

    private void prefetch() throws InterruptedException {
        long expireAfter = settings.expireAfter().toNanos();
        long lastRead = System.nanoTime();
        long lastTick = lastRead;
        long lastFilled = 0;
        double speed = 0;
        long logged = 0;
        while (!stopping) {
            int furthest = furthestRead();
            long now = System.nanoTime();
            if (furthest > position) {
                position = furthest;
                lastRead = now;
                lastReadAt = Instant.now();
            }
            if (position >= layout.blocks().size() - 1) {
                end(PlanPhase.Done, null);
                return;
            }
            if (now - lastRead > expireAfter) {
                end(PlanPhase.Expired, position < 0 ? "its reader never came"
                        : "nothing read for " + settings.expireAfter());
                return;
            }
            long bytes = filledBytes.get();
            if (bytes > lastFilled && now > lastTick) {
                double rate = (bytes - lastFilled) * 1e9 / (now - lastTick);
                speed = speed == 0 ? rate : 0.7 * speed + 0.3 * rate;
            }
            lastTick = now;
            lastFilled = bytes;
            windowBytes = Math.min(maxWindow, Math.max(settings.minWindow(),
                    (long) (speed * settings.lookahead().toNanos() / 1e9)));
            dispatch();
            if (LOG.isDebugEnabled() && now - logged > 1_000_000_000L) {
                logged = now;
                LOG.debugf("plan %s epoch %d: position %d, next %d, fetched %d, filled %d, window %d", plan.id(),
                        plan.epoch(), position, next, fetched.get(), filled.get(), windowBytes);
            }
            TimeUnit.NANOSECONDS.sleep(settings.pollInterval().toNanos());
        }
    }

    private void end(PlanPhase as, String why) {
        if (phase == PlanPhase.Prefetching) {
            phase = as;
            reason = why;
        }
    }

    /** Each owner's part of the plan: its blocks and their places in the whole order. */
    private void tellOwners() throws InterruptedException {
        List<Future<Void>> told = new ArrayList<>();
        for (int owner = 0; owner < layout.owners().size(); owner++) {
            told.add(tell(owner));
        }
        for (int owner = 0; owner < told.size(); owner++) {
            try {
                BlockClient.await(told.get(owner));
            } catch (RuntimeException e) {
                LOG.warnf("worker %s did not take its part of plan %s: %s", layout.owners().get(owner).id(),
                        plan.id(), e.getMessage());
            }
        }
    }

    private Future<Void> tell(int owner) {
        List<String> ids = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < layout.ownerOf().length; i++) {
            if (layout.ownerOf()[i] == owner) {
                ids.add(layout.blocks().get(i).id(plan.dataset()).toString());
                positions.add(i);
            }
        }
        return settings.client().putPlan(layout.owners().get(owner), plan.id(),
                new WorkerPlan(plan.dataset(), plan.epoch(), ids, positions));
    }

    /** The furthest position any owner saw read; an owner that lost its part (it restarted) is told it again. */
    private int furthestRead() throws InterruptedException {
        List<Future<Optional<PlanProgress>>> asked = new ArrayList<>();
        for (Worker owner : layout.owners()) {
            asked.add(settings.client().planProgress(owner, plan.id()));
        }
        int furthest = position;
        for (int owner = 0; owner < asked.size(); owner++) {
            try {
                Optional<PlanProgress> progress = asked.get(owner).toCompletionStage().toCompletableFuture()
                        .get(CALL_WAIT_MS, TimeUnit.MILLISECONDS);
                if (progress.isEmpty()) {
                    tell(owner);
                } else if (progress.get().epoch() == plan.epoch()) {
                    furthest = Math.max(furthest, progress.get().furthest());
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // this owner is slow or gone this time: the others say how far the reader got
            }
        }
        return furthest;
    }

    /**
     * Asks for the blocks from the reader's position to the window's end, in order, each owner's in batches with
     * at most a few in flight; blocks an owner had no room for are asked once more first.
     */
    private void dispatch() {
        int from = position + 1;
        // The window is bytes to fill: the plan's bytes it spans are as many more as the owners hold already.
        long reach = (long) (windowBytes / Math.max(missShare, 0.05));
        for (Integer retry; (retry = again.peek()) != null; again.poll()) {
            if (retry >= from && before[retry] - before[from] < reach) {
                pending.get(layout.ownerOf()[retry]).add(retry);
            }
        }
        next = Math.max(next, from);
        while (next < layout.blocks().size() && before[next] - before[from] < reach) {
            int owner = layout.ownerOf()[next];
            if (pending.get(owner).size() >= settings.batchBlocks()) {
                if (!send(owner)) {
                    break;  // its owner is busy: the order is kept, the rest waits for the next tick
                }
            }
            pending.get(owner).add(next++);
        }
        for (int owner = 0; owner < pending.size(); owner++) {
            if (!pending.get(owner).isEmpty()) {
                send(owner);
            }
        }
    }

    private boolean send(int owner) {
        if (inFlight.get(owner) >= settings.inFlightPerOwner()) {
            return false;
        }
        List<Integer> batch = List.copyOf(pending.get(owner));
        pending.get(owner).clear();
        List<BlockRef> refs = batch.stream().map(layout.blocks()::get).toList();
        inFlight.incrementAndGet(owner);
        settings.client().fill(layout.owners().get(owner), BlockFillRequest.prefetch(plan.dataset(), refs))
                .onComplete(answer -> {
                    inFlight.decrementAndGet(owner);
                    if (answer.succeeded()) {
                        counted(batch, answer.result());
                    } else {
                        LOG.debugf("plan %s: batch at %s failed: %s", plan.id(), layout.owners().get(owner).id(),
                                answer.cause().getMessage());
                        askAgain(batch);
                    }
                });
        return true;
    }

    private void counted(List<Integer> batch, BlockFillResult result) {
        fetched.addAndGet(result.cached() + result.filled());
        filled.addAndGet(result.filled());
        long bytes = 0;
        for (int position : batch) {
            bytes += layout.lengths()[position];
        }
        int asked = result.cached() + result.filled() + result.failed() + result.unavailable().size();
        filledBytes.addAndGet(asked == 0 ? 0 : bytes * result.filled() / asked);
        if (result.cached() + result.filled() > 0) {
            missShare = 0.8 * missShare + 0.2 * result.filled() / (result.cached() + result.filled());
        }
        tally.fetched(result.cached(), result.filled(), result.failed());
        if (result.failed() > 0 || !result.unavailable().isEmpty()) {
            askAgain(batch);  // which ones is not said: the held ones cost a lookup
        }
    }

    private void askAgain(List<Integer> batch) {
        synchronized (askedAgain) {
            for (int position : batch) {
                if (!askedAgain.get(position)) {
                    askedAgain.set(position);
                    again.add(position);
                }
            }
        }
    }

    /** The owners forget their parts: their blocks are the eviction policy's again. */
    private void forget() {
        for (Worker owner : layout.owners()) {
            try {
                settings.client().endPlan(owner, plan.id()).toCompletionStage().toCompletableFuture()
                        .get(CALL_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                LOG.debugf("worker %s keeps its part of plan %s until it expires there: %s", owner.id(), plan.id(),
                        e.getMessage());
            }
        }
    }
}
