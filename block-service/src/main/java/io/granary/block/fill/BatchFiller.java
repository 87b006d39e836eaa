package io.granary.block.fill;

import io.granary.block.config.BlockConfig;
import io.granary.block.store.BlockKey;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataload.FileError;
import io.granary.ufs.UnderStoreUnavailableException;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Batch fills: blocks already held cost a lookup; the rest are filled. A preload's fills run at most
 * {@code fill-parallelism} at once for the whole worker, however many batches arrive, so preloads cannot starve
 * readers of the worker's disk and network. A reader's (the gateway filling blocks it then sends from their files)
 * are filled at once on the request's own thread, in order, so they never queue behind a preload.
 */
@ApplicationScoped
public class BatchFiller {

    /** Errors reported per batch; the counts stay exact. */
    static final int MAX_ERRORS = 20;

    private final BlockStore store;
    private final BlockFiller filler;
    private final ExecutorService fills;

    BatchFiller(BlockStore store, BlockFiller filler, BlockConfig config) {
        this.store = store;
        this.filler = filler;
        AtomicInteger threads = new AtomicInteger();
        this.fills = Executors.newFixedThreadPool(config.fillParallelism(), runnable -> {
            Thread thread = new Thread(runnable, "block-fill-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    public BlockFillResult fill(BlockFillRequest request) {
        int cached = 0;
        long bytes = 0;
        List<BlockRef> missing = new ArrayList<>();
        for (BlockRef ref : request.blocks()) {
            BlockKey key = new BlockKey(request.dataset(), ref.id(request.dataset()));
            // A reader waits on the gateway's fills: a read. A preload's is not, nor may it spend a planned block.
            Optional<StoredBlock> held = request.forReader() ? store.find(key) : store.peek(key);
            if (held.isPresent()) {
                cached++;
                bytes += held.get().length();
            } else {
                missing.add(ref);
            }
        }
        List<Future<Optional<StoredBlock>>> running = new ArrayList<>();
        for (BlockRef ref : missing) {
            BlockKey key = new BlockKey(request.dataset(), ref.id(request.dataset()));
            Callable<Optional<StoredBlock>> fill = () -> filler.fill(key, ref, request.holder(), request.asked());
            running.add(request.forReader() ? now(fill) : fills.submit(fill));
        }
        int filled = 0;
        int failed = 0;
        List<FileError> errors = new ArrayList<>();
        List<BlockRef> unavailable = new ArrayList<>();
        for (int i = 0; i < running.size(); i++) {
            String reason;
            try {
                Optional<StoredBlock> block = running.get(i).get();
                if (block.isPresent()) {
                    filled++;
                    bytes += block.get().length();
                    continue;
                }
                reason = "no cache level has room";
            } catch (ExecutionException e) {
                if (unreachable(e.getCause())) {
                    unavailable.add(missing.get(i));  // the asker tries again once the store is back
                    continue;
                }
                reason = e.getCause().getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reason = "interrupted";
            }
            failed++;
            if (errors.size() < MAX_ERRORS) {
                errors.add(new FileError(missing.get(i).path(), "block " + missing.get(i).index() + ": " + reason));
            }
        }
        return new BlockFillResult(cached, filled, failed, bytes, errors, unavailable);
    }

    private static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnderStoreUnavailableException) {
                return true;
            }
        }
        return false;
    }

    private static <T> Future<T> now(Callable<T> task) {
        FutureTask<T> run = new FutureTask<>(task);
        run.run();
        return run;
    }

    @PreDestroy
    void stop() {
        fills.shutdownNow();
    }
}
