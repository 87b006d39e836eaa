package io.granary.block.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.config.BlockConfig;
import io.granary.block.store.LevelUsage;
import io.granary.contracts.events.HeartbeatEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.time.Instant;
import java.util.Map;

/** Tells the metadata-service every few seconds that this worker is alive, and what its levels hold. */
@ApplicationScoped
public class HeartbeatPublisher {

    private final Emitter<Record<String, String>> emitter;
    private final BlockConfig config;
    private final LevelUsage usage;
    private final ObjectMapper json;

    HeartbeatPublisher(@Channel("worker-heartbeats") Emitter<Record<String, String>> emitter, BlockConfig config,
                       LevelUsage usage, ObjectMapper json) {
        this.emitter = emitter;
        this.config = config;
        this.usage = usage;
        this.json = json;
    }

    @Scheduled(every = "${granary.block.heartbeat-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void beat() throws JsonProcessingException {
        HeartbeatEvent heartbeat = new HeartbeatEvent(config.workerId(), config.node(), config.advertisedAddress(),
                config.labels(), usage.tiers(), 0, 0, 0, 0, Map.of(), Instant.now());
        emitter.send(Record.of(config.workerId(), json.writeValueAsString(heartbeat)));
    }
}
