package io.granary.metadata.events;

import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import io.granary.metadata.service.CacheStatistics;
import io.granary.metadata.service.Membership;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Reads what the workers and the preload-service report. A message that does not parse or lacks what it must
 * carry (each record's {@code validate}) goes to {@code granary.deadletter} with the reason ({@link KafkaEvents}); the consumer carries on.
 */
@ApplicationScoped
public class ClusterEventsConsumer {

    private static final Logger LOG = Logger.getLogger(ClusterEventsConsumer.class);

    private final KafkaEvents events;
    private final Membership membership;
    private final CacheStatistics statistics;

    ClusterEventsConsumer(KafkaEvents events, Membership membership, CacheStatistics statistics) {
        this.events = events;
        this.membership = membership;
        this.statistics = statistics;
    }

    @Incoming(Topics.WORKER_HEARTBEATS)
    public void onHeartbeat(String message) {
        events.consume(Topics.WORKER_HEARTBEATS, message, HeartbeatEvent.class, heartbeat -> {
            membership.heartbeat(heartbeat);
            statistics.record(heartbeat);
        });
    }

    @Incoming(Topics.BLOCK_EVENTS)
    public void onBlockEvent(String message) {
        events.consume(Topics.BLOCK_EVENTS, message, BlockEvent.class, statistics::record);
    }

    @Incoming(Topics.PRELOAD_STATUS)
    public void onPreloadStatus(String message) {
        events.consume(Topics.PRELOAD_STATUS, message, DataLoadStatus.class,
                status -> LOG.debugf("dataload %s is %s", status.id(), status.phase()));
    }
}
