package io.granary.hook.admission;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Cache workers as the metadata-service sees them: heartbeats on the real broker, each saying how many bytes of
 * each dataset the worker holds, sent every half second so the workers stay live for the whole test.
 */
final class Heartbeats implements AutoCloseable {

    record Worker(String id, String node, Map<String, Long> cachedBytes) {
    }

    private final KafkaProducer<String, String> producer;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    Heartbeats(String bootstrapServers, ObjectMapper json, List<Worker> workers) {
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
                new StringSerializer(), new StringSerializer());
        timer.scheduleAtFixedRate(() -> workers.forEach(worker -> {
            HeartbeatEvent beat = new HeartbeatEvent(worker.id(), worker.node(), "http://127.0.0.1:9", Map.of(),
                    List.of(), 0, 0, 0, 0, Map.of(), worker.cachedBytes(), Instant.EPOCH, null,
                    Duration.ofMillis(500), Instant.now());
            try {
                producer.send(new ProducerRecord<>(Topics.WORKER_HEARTBEATS, worker.id(), json.writeValueAsString(beat)));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }), 0, 500, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        producer.close();
    }
}
