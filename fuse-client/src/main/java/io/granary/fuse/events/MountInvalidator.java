package io.granary.fuse.events;

import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.fuse.read.BlockReads;
import io.granary.fuse.tree.Namespace;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.events.KafkaEvents;
import io.smallrye.common.annotation.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Dataset events keep the mount's tree and blocks honest: a changed file is asked for again, a re-listed, changed
 * or deleted dataset is forgotten, a freed cache drops the blocks held here, and the worker list is re-read when a
 * worker joins or leaves. Every mount reads every event (a consumer group of its own).
 */
@ApplicationScoped
public class MountInvalidator {

    private final KafkaEvents events;
    private final Namespace namespace;
    private final BlockReads reads;
    private final LiveWorkers workers;

    MountInvalidator(KafkaEvents events, Namespace namespace, BlockReads reads, LiveWorkers workers) {
        this.events = events;
        this.namespace = namespace;
        this.reads = reads;
        this.workers = workers;
    }

    @Incoming(Topics.DATASET_EVENTS)
    @Blocking
    public void onDatasetEvent(String message) {
        events.consume(Topics.DATASET_EVENTS, message, DatasetEvent.class, event -> {
            switch (event.type()) {
                case WORKER_JOINED, WORKER_LEFT -> workers.refresh();
                case FILE_CHANGED -> namespace.forgetFile(event.dataset(), event.path());
                case CACHE_FREED -> reads.forget(event.dataset());
                case CREATED, UPDATED, DELETED, SYNCED -> {
                    namespace.forgetDataset(event.dataset());
                    reads.forget(event.dataset());
                }
            }
        });
    }
}
