package io.granary.preload.events;

import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

/** Publishes DataLoad progress keyed by load id, so one load's updates stay in order. */
@ApplicationScoped
public class StatusPublisher {

    private final Emitter<String> emitter;
    private final KafkaEvents events;

    StatusPublisher(@Channel(Topics.PRELOAD_STATUS) Emitter<String> emitter, KafkaEvents events) {
        this.emitter = emitter;
        this.events = events;
    }

    public void publish(DataLoadStatus status) {
        events.send(emitter, Topics.PRELOAD_STATUS, status.id(), status);
    }
}
