package io.granary.gateway.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.DatasetEvent;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Dataset events, which keep the gateway's near cache of metadata honest. Every gateway replica reads every
 * event (its own consumer group); a message that does not parse goes to {@code granary.deadletter}.
 */
@ApplicationScoped
public class DatasetEventsConsumer {

    private static final Logger LOG = Logger.getLogger(DatasetEventsConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;

    DatasetEventsConsumer(ObjectMapper json, MeterRegistry metrics) {
        this.json = json;
        this.metrics = metrics;
    }

    @Incoming("dataset-events")
    public void onDatasetEvent(String message) throws JsonProcessingException {
        DatasetEvent event = json.readValue(message, DatasetEvent.class);
        metrics.counter("granary.events.consumed", "topic", "granary.dataset.events").increment();
        LOG.debugf("dataset %s %s", event.dataset(), event.type());
    }
}
