package io.granary.preload.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.DataLoadStatus;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.io.UncheckedIOException;

/** Publishes DataLoad progress keyed by load id, so one load's updates stay in order. */
@ApplicationScoped
public class StatusPublisher {

    private final Emitter<Record<String, String>> emitter;
    private final ObjectMapper json;

    StatusPublisher(@Channel("preload-status") Emitter<Record<String, String>> emitter, ObjectMapper json) {
        this.emitter = emitter;
        this.json = json;
    }

    public void publish(DataLoadStatus status) {
        try {
            emitter.send(Record.of(status.id(), json.writeValueAsString(status)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
