package io.granary.block.events;

import io.granary.block.config.BlockConfig;
import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockListener;
import io.granary.block.store.StoredBlock;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.events.KafkaEvents;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

import java.time.Instant;

/** Reports blocks cached, evicted or found corrupt, keyed by worker, for the metadata-service's statistics. */
@ApplicationScoped
public class BlockEventPublisher implements BlockListener {

    private final Emitter<String> emitter;
    private final KafkaEvents events;
    private final BlockConfig config;
    private final String node;
    private final ReadStats stats;
    private final FillStages stages;

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
        publish(BlockEvent.Type.CACHED, block);
        stages.took(FillStages.Stage.EVENT, System.nanoTime() - started);
    }

    @Override
    public void evicted(StoredBlock block) {
        stats.evicted(block.medium());
        publish(BlockEvent.Type.EVICTED, block);
    }

    @Override
    public void corrupt(StoredBlock block) {
        stats.corrupt();
        publish(BlockEvent.Type.CORRUPT, block);
    }

    private void publish(BlockEvent.Type type, StoredBlock block) {
        BlockEvent event = new BlockEvent(type, config.workerId(), node, block.key().dataset(),
                block.key().id().toString(), block.length(), block.medium(), Instant.now());
        events.send(emitter, Topics.BLOCK_EVENTS, event.workerId(), event);
    }
}
