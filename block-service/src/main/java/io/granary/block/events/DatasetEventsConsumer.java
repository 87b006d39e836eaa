package io.granary.block.events;

import io.granary.block.client.DatasetDirectory;
import io.granary.block.store.BlockStore;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import io.granary.ufs.MountedStores;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Dataset events: a deleted dataset's blocks are dropped, so are those under a freed path and a changed file's old
 * versions, and a changed definition is asked for again (its under-stores opened afresh). Every worker reads every
 * event (a consumer group of its own).
 */
@ApplicationScoped
public class DatasetEventsConsumer {

    private static final Logger LOG = Logger.getLogger(DatasetEventsConsumer.class);

    private final KafkaEvents events;
    private final BlockStore store;
    private final DatasetDirectory datasets;
    private final MountedStores stores;

    DatasetEventsConsumer(KafkaEvents events, BlockStore store, DatasetDirectory datasets, MountedStores stores) {
        this.events = events;
        this.store = store;
        this.datasets = datasets;
        this.stores = stores;
    }

    @Incoming(Topics.DATASET_EVENTS)
    @Blocking
    public void onDatasetEvent(String message) {
        events.consume(Topics.DATASET_EVENTS, message, DatasetEvent.class, this::handle);
    }

    private void handle(DatasetEvent event) {
        switch (event.type()) {
            case DELETED -> {
                forget(event.dataset());
                BlockStore.Eviction dropped = store.evict(event.dataset(), "");
                LOG.infof("dataset %s deleted: dropped %d blocks (%d bytes)", event.dataset(), dropped.blocks(),
                        dropped.bytes());
            }
            case CACHE_FREED -> {
                String path = event.path() == null ? "" : event.path();
                BlockStore.Eviction dropped = store.evictUnder(event.dataset(), path);
                LOG.infof("dataset %s: cache under '%s' freed, %d blocks (%d bytes)", event.dataset(), path,
                        dropped.blocks(), dropped.bytes());
            }
            case UPDATED, CREATED -> forget(event.dataset());
            case FILE_CHANGED -> store.evictStale(event.dataset(), event.path(),
                    event.etag() == null ? "" : event.etag());
            default -> LOG.debugf("dataset event %s %s", event.type(), event.key());
        }
    }

    private void forget(String dataset) {
        datasets.cached(dataset).map(DatasetSpec::mounts).ifPresent(stores::forget);
        datasets.forget(dataset);
    }
}
