package io.granary.preload.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.validation.ValidationException;
import io.granary.preload.service.DataLoads;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Preload requests from pipelines. The load is recorded before the method returns, and only then is the message
 * acknowledged (its offset committed): a request is never lost between Kafka and the store. A request that does
 * not parse or validate, or names an unknown dataset, throws: the channel's dead-letter strategy sends it to
 * {@code granary.deadletter} with the reason, a Failed status says why when it carried a requestId, and the next
 * message is read as usual.
 */
@ApplicationScoped
public class PreloadRequestConsumer {

    private static final Logger LOG = Logger.getLogger(PreloadRequestConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final DataLoads loads;

    PreloadRequestConsumer(ObjectMapper json, MeterRegistry metrics, DataLoads loads) {
        this.json = json;
        this.metrics = metrics;
        this.loads = loads;
    }

    @Incoming("preload-requests")
    @Blocking
    public void onRequest(String message) throws JsonProcessingException {
        try {
            PreloadRequest request = json.readValue(message, PreloadRequest.class);
            if (request == null) {
                throw new ValidationException("value", "is empty");
            }
            request = request.validate();
            loads.submit(request.requestId(), request.spec());
            metrics.counter("granary.events.consumed", "topic", "granary.preload.requests").increment();
            LOG.infof("preload request %s for dataset %s accepted", request.requestId(), request.dataset());
        } catch (ValidationException | JsonProcessingException e) {
            metrics.counter("granary.events.deadlettered", "topic", "granary.preload.requests").increment();
            refuse(message, e.getMessage());
            throw e;
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
