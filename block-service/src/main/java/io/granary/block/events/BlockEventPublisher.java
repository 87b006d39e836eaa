package io.granary.block.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.config.BlockConfig;
import io.granary.block.stats.ReadStats;
import io.granary.block.store.BlockListener;
import io.granary.block.store.StoredBlock;
import io.granary.contracts.events.BlockEvent;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

import java.io.UncheckedIOException;
import java.time.Instant;

/** Reports blocks cached, evicted or found corrupt, keyed by worker, for the metadata-service's statistics. */
@ApplicationScoped
public class BlockEventPublisher implements BlockListener {

    private final Emitter<Record<String, String>> emitter;
    private final ObjectMapper json;
    private final BlockConfig config;
    private final ReadStats stats;

    BlockEventPublisher(@Channel("block-events") @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 65536)
                        Emitter<Record<String, String>> emitter, ObjectMapper json, BlockConfig config,
                        ReadStats stats) {
        this.emitter = emitter;
        this.json = json;
        this.config = config;
        this.stats = stats;
    }

    @Override
    public void cached(StoredBlock block) {
        publish(BlockEvent.Type.CACHED, block);
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
        BlockEvent event = new BlockEvent(type, config.workerId(), config.node(), block.key().dataset(),
                block.key().id().toString(), block.length(), block.medium(), Instant.now());
        try {
            emitter.send(Record.of(event.workerId(), json.writeValueAsString(event)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
