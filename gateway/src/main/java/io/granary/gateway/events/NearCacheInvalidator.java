package io.granary.gateway.events;

import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.gateway.client.NearCache;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.events.KafkaEvents;
import io.granary.ufs.MountedStores;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * Dataset events keep the gateway's near cache of metadata honest, its under-stores current and its worker list
 * fresh. Every gateway replica reads every event (its own consumer group). Blocking: re-reading the workers is a
 * REST call, and forgetting a dataset walks its cached stats; neither belongs on an event loop.
 */
@ApplicationScoped
public class NearCacheInvalidator {

    private static final Logger LOG = Logger.getLogger(NearCacheInvalidator.class);

    private final KafkaEvents events;
    private final NearCache near;
    private final LiveWorkers liveWorkers;
    private final MountedStores stores;

    NearCacheInvalidator(KafkaEvents events, NearCache near, LiveWorkers liveWorkers, MountedStores stores) {
        this.events = events;
        this.near = near;
        this.liveWorkers = liveWorkers;
        this.stores = stores;
    }

    @Incoming(Topics.DATASET_EVENTS)
    @Blocking
    public void onDatasetEvent(String message) {
        events.consume(Topics.DATASET_EVENTS, message, DatasetEvent.class, event -> {
            LOG.debugf("dataset %s %s", event.dataset(), event.type());
            switch (event.type()) {
                case WORKER_JOINED, WORKER_LEFT -> liveWorkers.refresh();
                case FILE_CHANGED -> near.forgetFile(event.dataset(), event.path());
                case SYNCED -> near.forgetDataset(event.dataset());
                case CREATED, UPDATED, DELETED -> {
                    near.cachedDataset(event.dataset()).ifPresent(d -> stores.forget(d.spec().mounts()));
                    near.forgetDataset(event.dataset());
                }
            }
        });
    }
}
