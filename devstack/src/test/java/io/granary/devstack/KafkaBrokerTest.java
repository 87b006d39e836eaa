package io.granary.devstack;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaBrokerTest {

    @TempDir
    Path dir;

    @Test
    void aMessageProducedIsConsumedAndSurvivesABrokerRestart() throws Exception {
        int port;
        long pid;
        try (KafkaBroker broker = KafkaBroker.start(dir)) {
            port = broker.port();
            pid = broker.pid();
            produce(broker.bootstrapServers(), "hello", "granary");
            assertThat(consumeAll(broker.bootstrapServers())).containsExactly("hello=granary");
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("broker stopped by PID").isIn(java.util.Optional.empty(), java.util.Optional.of(false));
        assertThat(Ports.listening(port)).isFalse();

        try (KafkaBroker again = KafkaBroker.start(dir)) {
            assertThat(consumeAll(again.bootstrapServers())).as("the log dir is kept").containsExactly("hello=granary");
        }
    }

    @Test
    void aTakenPortIsNamed() throws Exception {
        try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> KafkaBroker.start(dir, taken.getLocalPort(), Ports.free()))
                    .hasMessageContaining("port " + taken.getLocalPort() + " is already in use");
        }
    }

    @Test
    void aClusterIdIsAKafkaUuidTheStorageToolCannotTakeForAnOption() {
        // one plain draw in 64 starts with '-': over 2,000 draws the old id failed the format almost surely
        for (int i = 0; i < 2_000; i++) {
            String id = KafkaBroker.newClusterId();
            assertThat(id).doesNotStartWith("-");
            assertThat(Uuid.fromString(id).toString()).isEqualTo(id);
        }
    }

    private static void produce(String bootstrap, String key, String value) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            producer.send(new ProducerRecord<>("devstack.test", key, value)).get();
        }
    }

    private static List<String> consumeAll(String bootstrap) {
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
            consumer.subscribe(List.of("devstack.test"));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    seen.add(record.key() + "=" + record.value());
                }
            }
        }
        return seen;
    }
}
