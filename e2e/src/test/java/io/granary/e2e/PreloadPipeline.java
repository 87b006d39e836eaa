package io.granary.e2e;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.events.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A training pipeline's side of a preload: it publishes a request on {@code granary.preload.requests} and
 * follows the load's progress on {@code granary.preload.status} until it ends, as an orchestrator would.
 */
final class PreloadPipeline {

    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final String bootstrapServers;

    PreloadPipeline(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
    }

    /** Every status update of the load for {@code request}'s dataset, in order, the last one final. */
    List<DataLoadStatus> preload(PreloadRequest request, Duration timeout) throws Exception {
        try (KafkaConsumer<String, String> status = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "e2e-pipeline-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer());
             KafkaProducer<String, String> requests = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new StringSerializer(), new StringSerializer())) {
            status.subscribe(List.of(Topics.PRELOAD_STATUS));
            requests.send(new ProducerRecord<>(Topics.PRELOAD_REQUESTS, request.requestId(),
                    JSON.writeValueAsString(request))).get();
            List<DataLoadStatus> seen = new ArrayList<>();
            Instant deadline = Instant.now().plus(timeout);
            while (Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, String> record : status.poll(Duration.ofMillis(500))) {
                    DataLoadStatus update = JSON.readValue(record.value(), DataLoadStatus.class);
                    if (request.dataset().equals(update.dataset())) {
                        seen.add(update);
                        if (ended(update.phase())) {
                            return seen;
                        }
                    }
                }
            }
            throw new AssertionError("the load did not end within " + timeout + "; last status: "
                    + (seen.isEmpty() ? "none" : seen.get(seen.size() - 1)));
        }
    }

    private static boolean ended(DataLoadPhase phase) {
        return phase == DataLoadPhase.COMPLETE || phase == DataLoadPhase.FAILED || phase == DataLoadPhase.CANCELLED;
    }
}
