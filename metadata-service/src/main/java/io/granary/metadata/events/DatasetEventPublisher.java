package io.granary.metadata.events;

import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.util.concurrent.CompletionStage;

/** Publishes dataset events, keyed by dataset so one dataset's events stay in order. */
@ApplicationScoped
public class DatasetEventPublisher {

    private final Emitter<String> emitter;
    private final KafkaEvents events;

    DatasetEventPublisher(@Channel(Topics.DATASET_EVENTS) Emitter<String> emitter, KafkaEvents events) {
        this.emitter = emitter;
        this.events = events;
    }

    /** Completes once Kafka has the event. */
    public CompletionStage<Void> publish(DatasetEvent event) {
        return events.send(emitter, Topics.DATASET_EVENTS, event.key(), event);
    }
}
