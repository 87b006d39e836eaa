package io.granary.block.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.config.BlockConfig;
import io.granary.block.stats.ReadStats;
import io.granary.block.store.TieredStore;
import io.granary.contracts.events.HeartbeatEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.time.Instant;

/** Tells the metadata-service every few seconds that this worker is alive, what its levels hold and what it served. */
@ApplicationScoped
public class HeartbeatPublisher {

    private final Emitter<Record<String, String>> emitter;
    private final BlockConfig config;
    private final TieredStore store;
    private final ReadStats stats;
    private final ObjectMapper json;

    HeartbeatPublisher(@Channel("worker-heartbeats") Emitter<Record<String, String>> emitter, BlockConfig config,
                       TieredStore store, ReadStats stats, ObjectMapper json) {
        this.emitter = emitter;
        this.config = config;
        this.store = store;
        this.stats = stats;
        this.json = json;
    }

    // Delayed: the first beat must not race the Kafka emitter being connected at start.
    @Scheduled(every = "${granary.block.heartbeat-interval}", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void beat() throws JsonProcessingException {
        HeartbeatEvent heartbeat = new HeartbeatEvent(config.workerId(), config.node(), config.advertisedAddress(),
                config.labels(), store.tiers(), stats.hits(), stats.misses(), stats.bytesServed(),
                stats.underStoreBytesRead(), stats.byDataset(), store.bytesByDataset(), Instant.now());
        emitter.send(Record.of(config.workerId(), json.writeValueAsString(heartbeat)));
    }
}
