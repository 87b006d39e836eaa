package io.granary.metadata.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;
import io.granary.metadata.service.CacheStatistics;
import io.granary.metadata.service.Membership;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Reads what the workers and the preload-service report. A message that does not parse or lacks what it must
 * carry throws, which the channel's dead-letter strategy turns into a record on {@code granary.deadletter} with
 * the reason; the consumer carries on with the next message.
 */
@ApplicationScoped
public class ClusterEventsConsumer {

    private static final Logger LOG = Logger.getLogger(ClusterEventsConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final Membership membership;
    private final CacheStatistics statistics;

    ClusterEventsConsumer(ObjectMapper json, MeterRegistry metrics, Membership membership,
                          CacheStatistics statistics) {
        this.json = json;
        this.metrics = metrics;
        this.membership = membership;
        this.statistics = statistics;
    }

    @Incoming("worker-heartbeats")
    public void onHeartbeat(String message) {
        HeartbeatEvent heartbeat = parse(Topics.WORKER_HEARTBEATS, message, HeartbeatEvent.class);
        guard(Topics.WORKER_HEARTBEATS, () -> {
            Check.required("workerId", heartbeat.workerId());
            Check.required("node", heartbeat.node());
            Check.required("address", heartbeat.address());
        });
        membership.heartbeat(heartbeat);
        statistics.record(heartbeat);
        consumed(Topics.WORKER_HEARTBEATS);
    }

    @Incoming("block-events")
    public void onBlockEvent(String message) {
        BlockEvent event = parse(Topics.BLOCK_EVENTS, message, BlockEvent.class);
        guard(Topics.BLOCK_EVENTS, () -> {
            Check.required("type", event.type());
            Check.required("dataset", event.dataset());
            Check.required("node", event.node());
            Check.required("workerId", event.workerId());
            if (event.bytes() < 0) {
                throw new ValidationException("bytes", "must not be negative");
            }
        });
        statistics.record(event);
        consumed(Topics.BLOCK_EVENTS);
    }

    @Incoming("preload-status")
    public void onPreloadStatus(String message) {
        DataLoadStatus status = parse(Topics.PRELOAD_STATUS, message, DataLoadStatus.class);
        guard(Topics.PRELOAD_STATUS, () -> {
            Check.required("id", status.id());
            Check.required("phase", status.phase());
        });
        consumed(Topics.PRELOAD_STATUS);
        LOG.debugf("dataload %s is %s", status.id(), status.phase());
    }

    private <T> T parse(String topic, String message, Class<T> type) {
        try {
            T value = json.readValue(message, type);
            if (value == null) {
                throw new ValidationException("value", "is empty");
            }
            return value;
        } catch (JsonProcessingException e) {
            deadLettered(topic);
            throw new IllegalArgumentException("not a " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        } catch (RuntimeException e) {
            deadLettered(topic);
            throw e;
        }
    }

    private void guard(String topic, Runnable check) {
        try {
            check.run();
        } catch (ValidationException e) {
            deadLettered(topic);
            throw e;
        }
    }

    private void consumed(String topic) {
        metrics.counter("granary.events.consumed", "topic", topic).increment();
    }

    private void deadLettered(String topic) {
        metrics.counter("granary.events.deadlettered", "topic", topic).increment();
    }
}
