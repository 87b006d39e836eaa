package io.granary.preload.service;

import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.granary.preload.config.PreloadConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;

/**
 * The batch fills all running DataLoads send to the workers: at most {@code batch-blocks} blocks each, at most
 * {@code concurrency-per-worker} in flight at one worker, and all of them within {@code bandwidth-limit}.
 */
@ApplicationScoped
public class WorkerBatches {

    private final BlockClient blocks;
    private final int batchBlocks;
    private final int concurrencyPerWorker;
    private final Throttle throttle;
    private final Map<String, Semaphore> perWorker = new ConcurrentHashMap<>();
    private final ExecutorService senders = Executors.newCachedThreadPool(DataLoads.daemon("dataload-batch"));

    WorkerBatches(BlockClient blocks, PreloadConfig config) {
        this.blocks = blocks;
        this.batchBlocks = config.batchBlocks();
        this.concurrencyPerWorker = config.concurrencyPerWorker();
        this.throttle = new Throttle(ByteSize.parse("bandwidthLimit", config.bandwidthLimit()));
    }

    int batchBlocks() {
        return batchBlocks;
    }

    /** Runs a send on a thread of its own, so every worker's batches go in parallel. */
    <T> Future<T> submit(Callable<T> send) {
        return senders.submit(send);
    }

    /**
     * Sends the batch once the bandwidth allows {@code bytes} more and its worker has a free slot.
     *
     * @return what the worker answered; null when {@code cancelled} turned true while the batch waited
     * @throws RuntimeException when the worker fails or cannot be reached
     */
    BlockFillResult fill(Worker owner, BlockFillRequest batch, long bytes, BooleanSupplier cancelled)
            throws InterruptedException {
        throttle.acquire(bytes);
        Semaphore slots = perWorker.computeIfAbsent(owner.address(), a -> new Semaphore(concurrencyPerWorker));
        slots.acquire();
        try {
            if (cancelled.getAsBoolean()) {
                return null;  // checked after the waits: a cancel while this batch waited its turn stops it
            }
            return BlockClient.await(blocks.fill(owner, batch));
        } finally {
            slots.release();
        }
    }

    @PreDestroy
    void stop() {
        senders.shutdownNow();
    }
}
