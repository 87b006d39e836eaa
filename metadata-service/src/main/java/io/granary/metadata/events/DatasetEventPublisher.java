package io.granary.metadata.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.DatasetEvent;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.io.UncheckedIOException;
import java.util.concurrent.CompletionStage;

/** Publishes dataset events, keyed by dataset so one dataset's events stay in order. */
@ApplicationScoped
public class DatasetEventPublisher {

    private final Emitter<Record<String, String>> emitter;
    private final ObjectMapper json;

    DatasetEventPublisher(@Channel("dataset-events") Emitter<Record<String, String>> emitter, ObjectMapper json) {
        this.emitter = emitter;
        this.json = json;
    }

    public CompletionStage<Void> publish(DatasetEvent event) {
        try {
            return emitter.send(Record.of(event.key(), json.writeValueAsString(event)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
