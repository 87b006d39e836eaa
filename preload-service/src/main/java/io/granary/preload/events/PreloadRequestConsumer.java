package io.granary.preload.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.PreloadRequest;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Preload requests from pipelines. A request that does not parse or validate throws, and the channel's
 * dead-letter strategy sends it to {@code granary.deadletter} with the reason; the next one is read as usual.
 */
@ApplicationScoped
public class PreloadRequestConsumer {

    private static final Logger LOG = Logger.getLogger(PreloadRequestConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;

    PreloadRequestConsumer(ObjectMapper json, MeterRegistry metrics) {
        this.json = json;
        this.metrics = metrics;
    }

    @Incoming("preload-requests")
    public void onRequest(String message) throws JsonProcessingException {
        PreloadRequest request = json.readValue(message, PreloadRequest.class);
        request.validate();
        metrics.counter("granary.events.consumed", "topic", "granary.preload.requests").increment();
        LOG.infof("preload request %s for dataset %s", request.requestId(), request.spec().dataset());
    }
}
