package io.granary.kit.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.eclipse.microprofile.reactive.messaging.Metadata;

import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Granary's events on Kafka, one way for every service: records of {@code contracts} as JSON, sent to a topic of
 * {@code Topics} (the record names it, so a channel needs no topic of its own) and keyed so one key's events stay
 * in order; read back with every message counted by topic, {@code granary_events_consumed_total} or
 * {@code granary_events_deadlettered_total}. A message that does not parse or that its handler refuses throws:
 * the channel's dead-letter strategy (set for every channel in this module's config) puts it on
 * {@code granary.deadletter} with the reason, and the consumer carries on with the next.
 */
@ApplicationScoped
public class KafkaEvents {

    private final ObjectMapper json;
    private final MeterRegistry metrics;

    KafkaEvents(ObjectMapper json, MeterRegistry metrics) {
        this.json = json;
        this.metrics = metrics;
    }

    /** Completes once Kafka has the event (or fails with why it does not). */
    public CompletionStage<Void> send(Emitter<String> emitter, String topic, String key, Object event) {
        String payload;
        try {
            payload = json.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        CompletableFuture<Void> sent = new CompletableFuture<>();
        emitter.send(Message.of(payload,
                Metadata.of(OutgoingKafkaRecordMetadata.<String>builder().withTopic(topic).withKey(key).build()),
                () -> {
                    sent.complete(null);
                    return CompletableFuture.completedFuture(null);
                },
                failure -> {
                    sent.completeExceptionally(failure);
                    return CompletableFuture.completedFuture(null);
                }));
        metrics.counter("granary.events.published", "topic", topic).increment();
        return sent;
    }

    /**
     * Parses {@code message} as a {@code type}, validates it when it is {@link Validated} (every event record of
     * {@code contracts} is), and hands it on; the handler may throw to refuse it too.
     *
     * @throws IllegalArgumentException when the message is not a {@code type}, or whatever the handler threw;
     *                                  either way the message is counted as dead-lettered
     */
    public <T> void consume(String topic, String message, Class<T> type, Consumer<T> handler) {
        try {
            handler.accept(parse(message, type));
        } catch (RuntimeException e) {
            metrics.counter("granary.events.deadlettered", "topic", topic).increment();
            throw e;
        }
        metrics.counter("granary.events.consumed", "topic", topic).increment();
    }

    private <T> T parse(String message, Class<T> type) {
        T value;
        try {
            value = json.readValue(message, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
        if (value == null) {
            throw new ValidationException("value", "is empty");
        }
        return value instanceof Validated<?> validated ? type.cast(validated.validate()) : value;
    }
}
