package io.granary.gateway.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.DatasetEvent;
import io.granary.gateway.metadata.Membership;
import io.granary.gateway.metadata.NearCache;
import io.granary.gateway.understore.MountedStores;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Dataset events keep the gateway's near cache of metadata honest and its worker list fresh. Every gateway replica
 * reads every event (its own consumer group); a message that does not parse goes to {@code granary.deadletter}.
 */
@ApplicationScoped
public class DatasetEventsConsumer {

    private static final Logger LOG = Logger.getLogger(DatasetEventsConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final NearCache near;
    private final Membership membership;
    private final MountedStores stores;

    DatasetEventsConsumer(ObjectMapper json, MeterRegistry metrics, NearCache near, Membership membership,
                          MountedStores stores) {
        this.json = json;
        this.metrics = metrics;
        this.near = near;
        this.membership = membership;
        this.stores = stores;
    }

    @Incoming("dataset-events")
    public void onDatasetEvent(String message) throws JsonProcessingException {
        DatasetEvent event = json.readValue(message, DatasetEvent.class);
        if (event == null || event.type() == null) {
            throw new IllegalArgumentException("a dataset event needs a type");
        }
        metrics.counter("granary.events.consumed", "topic", "granary.dataset.events").increment();
        LOG.debugf("dataset %s %s", event.dataset(), event.type());
        switch (event.type()) {
            case WORKER_JOINED, WORKER_LEFT -> membership.refresh();
            case FILE_CHANGED -> near.forgetFile(event.dataset(), event.path());
            case SYNCED -> near.forgetDataset(event.dataset());
            case CREATED, UPDATED, DELETED -> {
                near.cachedDataset(event.dataset()).ifPresent(stores::forget);
                near.forgetDataset(event.dataset());
            }
        }
    }
}
