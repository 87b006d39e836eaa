package io.granary.block.events;

import io.granary.block.config.BlockConfig;
import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockListener;
import io.granary.block.store.StoredBlock;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Medium;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.events.KafkaEvents;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reports blocks cached, evicted or found corrupt, keyed by worker, for the metadata-service's statistics. Cached
 * and evicted blocks are summed per dataset and level and sent every {@code granary.block.events-interval}: a fill
 * only adds to a sum, it sends nothing, but for this worker's first block of a dataset, sent at once: other workers
 * ask the ones the metadata-service counts as caching a dataset for a block they miss (hand-over). A corrupt block
 * is sent at once, by itself.
 */
@ApplicationScoped
public class BlockEventPublisher implements BlockListener {

    private final Emitter<String> emitter;
    private final KafkaEvents events;
    private final BlockConfig config;
    private final String node;
    private final ReadStats stats;
    private final FillStages stages;
    private final Map<Sum, Counts> pending = new ConcurrentHashMap<>();
    /** Datasets this worker has said it caches since it started. */
    private final Set<String> announced = ConcurrentHashMap.newKeySet();

    BlockEventPublisher(@Channel(Topics.BLOCK_EVENTS)
                        @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65536) Emitter<String> emitter,
                        KafkaEvents events, BlockConfig config, GranaryConfig shared, ReadStats stats,
                        FillStages stages) {
        this.emitter = emitter;
        this.node = shared.node();
        this.events = events;
        this.config = config;
        this.stats = stats;
        this.stages = stages;
    }

    @Override
    public void cached(StoredBlock block) {
        long started = System.nanoTime();
        add(BlockEvent.Type.CACHED, block);
        if (announced.add(block.key().dataset())) {
            flush();  // this worker's first block of the dataset: peers look for holders by it, said at once
        }
        stages.took(FillStages.Stage.EVENT, System.nanoTime() - started);
    }

    @Override
    public void evicted(StoredBlock block) {
        stats.evicted(block.medium());
        add(BlockEvent.Type.EVICTED, block);
    }

    @Override
    public void corrupt(StoredBlock block) {
        stats.corrupt();
        send(new BlockEvent(BlockEvent.Type.CORRUPT, config.workerId(), node, block.key().dataset(),
                block.key().id().toString(), 1, block.length(), block.medium(), Instant.now()));
    }

    /** Sends the sums gathered since the last flush, one event per dataset, level and kind that moved. */
    @Scheduled(every = "${granary.block.events-interval}", skipExecutionIf = NotStartedYet.class,
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void flush() {
        pending.forEach((sum, counts) -> {
            long blocks;
            long bytes;
            synchronized (counts) {  // a block added meanwhile lands in this flush or the next, never in neither
                blocks = counts.blocks;
                bytes = counts.bytes;
                counts.blocks = 0;
                counts.bytes = 0;
            }
            if (blocks > 0) {
                send(new BlockEvent(sum.type(), config.workerId(), node, sum.dataset(), null,
                        (int) Math.min(Integer.MAX_VALUE, blocks), bytes, sum.medium(), Instant.now()));
            }
        });
    }

    private void add(BlockEvent.Type type, StoredBlock block) {
        Counts counts = pending.computeIfAbsent(new Sum(block.key().dataset(), block.medium(), type),
                sum -> new Counts());
        synchronized (counts) {
            counts.blocks++;
            counts.bytes += block.length();
        }
    }

    private void send(BlockEvent event) {
        events.send(emitter, Topics.BLOCK_EVENTS, event.workerId(), event);
    }

    private record Sum(String dataset, Medium medium, BlockEvent.Type type) {
    }

    private static final class Counts {
        long blocks;
        long bytes;
    }
}
