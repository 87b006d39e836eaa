package io.granary.block.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.BlockEvent;
import io.smallrye.reactive.messaging.kafka.Record;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.io.UncheckedIOException;

/** Reports blocks cached, evicted or found corrupt, keyed by worker, for the metadata-service's statistics. */
@ApplicationScoped
public class BlockEventPublisher {

    private final Emitter<Record<String, String>> emitter;
    private final ObjectMapper json;

    BlockEventPublisher(@Channel("block-events") Emitter<Record<String, String>> emitter, ObjectMapper json) {
        this.emitter = emitter;
        this.json = json;
    }

    public void publish(BlockEvent event) {
        try {
            emitter.send(Record.of(event.workerId(), json.writeValueAsString(event)));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
