package io.granary.preload.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import io.granary.preload.service.DataLoads;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Preload requests from pipelines. The load is recorded before the method returns, and only then is the message
 * acknowledged (its offset committed): a request is never lost between Kafka and the store. A request that does
 * not parse or validate, or names an unknown dataset, goes to {@code granary.deadletter} with the reason
 * ({@link KafkaEvents}), a Failed status says why when it carried a requestId, and the next message is read as
 * usual.
 */
@ApplicationScoped
public class PreloadRequestConsumer {

    private static final Logger LOG = Logger.getLogger(PreloadRequestConsumer.class);

    private final KafkaEvents events;
    private final ObjectMapper json;
    private final DataLoads loads;

    PreloadRequestConsumer(KafkaEvents events, ObjectMapper json, DataLoads loads) {
        this.events = events;
        this.json = json;
        this.loads = loads;
    }

    @Incoming(Topics.PRELOAD_REQUESTS)
    @Blocking
    public void onRequest(String message) {
        try {
            events.consume(Topics.PRELOAD_REQUESTS, message, PreloadRequest.class, request -> {
                loads.submit(request.requestId(), request.spec());
                LOG.infof("preload request %s for dataset %s accepted", request.requestId(), request.dataset());
            });
        } catch (IllegalArgumentException refused) {
            refuse(message, refused.getMessage());
            throw refused;
        }
    }

    /** Tells the sender, on the status topic, why its request was refused, when the request has an id to tell it by. */
    private void refuse(String message, String reason) {
        try {
            JsonNode node = json.readTree(message);
            if (node != null && node.hasNonNull("requestId") && node.get("requestId").isTextual()) {
                loads.refused(node.get("requestId").asText(), node.path("dataset").asText(null), reason);
            }
        } catch (JsonProcessingException | RuntimeException unreadable) {
            // not JSON at all: there is nobody to tell
        }
    }
}
