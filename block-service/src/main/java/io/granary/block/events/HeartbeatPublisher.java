package io.granary.block.events;

import io.granary.block.config.BlockConfig;
import io.granary.block.drain.WorkerDrain;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockStore;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.events.KafkaEvents;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.lang.management.ManagementFactory;
import java.time.Instant;

/** Tells the metadata-service every few seconds that this worker is alive, what its levels hold and what it served. */
@ApplicationScoped
public class HeartbeatPublisher {

    /** The process's start, which the console and the CLI show as the worker's. */
    private static final Instant STARTED_AT = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());

    private final Emitter<String> emitter;
    private final KafkaEvents events;
    private final BlockConfig config;
    private final String node;
    private final BlockStore store;
    private final ReadStats stats;
    private final WorkerDrain drain;

    HeartbeatPublisher(@Channel(Topics.WORKER_HEARTBEATS) Emitter<String> emitter, KafkaEvents events,
                       BlockConfig config, GranaryConfig shared, BlockStore store, ReadStats stats,
                       WorkerDrain drain) {
        this.drain = drain;
        this.emitter = emitter;
        this.node = shared.node();
        this.events = events;
        this.config = config;
        this.store = store;
        this.stats = stats;
    }

    // Not before the application has started: the first beat must not race the Kafka emitter being connected (a
    // fixed delay was too short for a worker restarted on a busy machine, which logged an error per beat). Beats
    // go on while it stops: a drain on SIGTERM sends its last one then.
    @Scheduled(every = "${granary.block.heartbeat-interval}", skipExecutionIf = NotStartedYet.class,
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void beat() {
        HeartbeatEvent heartbeat = new HeartbeatEvent(config.workerId(), node, config.advertisedAddress(),
                config.labels(), store.workerLevels(), stats.hits(), stats.misses(), stats.bytesServed(),
                stats.underStoreBytesRead(), stats.byDataset(), store.bytesByDataset(), STARTED_AT,
                drain.status(), config.heartbeatInterval(), Instant.now());
        events.send(emitter, Topics.WORKER_HEARTBEATS, config.workerId(), heartbeat);
    }
}
