package io.granary.metadata.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Reads what the workers and the preload-service report. A message that does not parse throws, which the
 * channel's dead-letter strategy turns into a record on {@code granary.deadletter} with the reason; the
 * consumer carries on with the next message.
 */
@ApplicationScoped
public class ClusterEventsConsumer {

    private static final Logger LOG = Logger.getLogger(ClusterEventsConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;

    ClusterEventsConsumer(ObjectMapper json, MeterRegistry metrics) {
        this.json = json;
        this.metrics = metrics;
    }

    @Incoming("worker-heartbeats")
    public void onHeartbeat(String message) throws JsonProcessingException {
        HeartbeatEvent heartbeat = json.readValue(message, HeartbeatEvent.class);
        consumed(Topics.WORKER_HEARTBEATS);
        LOG.debugf("heartbeat from worker %s", heartbeat.workerId());
    }

    @Incoming("block-events")
    public void onBlockEvent(String message) throws JsonProcessingException {
        BlockEvent event = json.readValue(message, BlockEvent.class);
        consumed(Topics.BLOCK_EVENTS);
        LOG.debugf("block %s %s on %s", event.blockId(), event.type(), event.workerId());
    }

    @Incoming("preload-status")
    public void onPreloadStatus(String message) throws JsonProcessingException {
        DataLoadStatus status = json.readValue(message, DataLoadStatus.class);
        consumed(Topics.PRELOAD_STATUS);
        LOG.debugf("dataload %s is %s", status.id(), status.phase());
    }

    private void consumed(String topic) {
        metrics.counter("granary.events.consumed", "topic", topic).increment();
    }
}
