package io.granary.block.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.fill.DatasetDirectory;
import io.granary.block.store.TieredStore;
import io.granary.contracts.events.DatasetEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Dataset events: a deleted dataset's blocks are dropped, so are those under a freed path and a changed file's old
 * versions, and a changed definition is asked for again. Every worker reads every event (a consumer group of its
 * own); a message that does not parse goes to {@code granary.deadletter}.
 */
@ApplicationScoped
public class DatasetEventsConsumer {

    private static final Logger LOG = Logger.getLogger(DatasetEventsConsumer.class);

    private final ObjectMapper json;
    private final MeterRegistry metrics;
    private final TieredStore store;
    private final DatasetDirectory datasets;

    DatasetEventsConsumer(ObjectMapper json, MeterRegistry metrics, TieredStore store, DatasetDirectory datasets) {
        this.json = json;
        this.metrics = metrics;
        this.store = store;
        this.datasets = datasets;
    }

    @Incoming("dataset-events")
    @Blocking
    public void onDatasetEvent(String message) throws JsonProcessingException {
        DatasetEvent event = json.readValue(message, DatasetEvent.class);
        if (event == null || event.type() == null) {
            throw new IllegalArgumentException("a dataset event needs a type");
        }
        metrics.counter("granary.events.consumed", "topic", "granary.dataset.events").increment();
        switch (event.type()) {
            case DELETED -> {
                datasets.forget(event.dataset());
                TieredStore.Eviction dropped = store.evict(event.dataset(), "");
                LOG.infof("dataset %s deleted: dropped %d blocks (%d bytes)", event.dataset(), dropped.blocks(),
                        dropped.bytes());
            }
            case CACHE_FREED -> {
                String path = event.path() == null ? "" : event.path();
                TieredStore.Eviction dropped = store.evictUnder(event.dataset(), path);
                LOG.infof("dataset %s: cache under '%s' freed, %d blocks (%d bytes)", event.dataset(), path,
                        dropped.blocks(), dropped.bytes());
            }
            case UPDATED, CREATED -> datasets.forget(event.dataset());
            case FILE_CHANGED -> store.evictStale(event.dataset(), event.path(),
                    event.etag() == null ? "" : event.etag());
            default -> LOG.debugf("dataset event %s %s", event.type(), event.key());
        }
    }
}
