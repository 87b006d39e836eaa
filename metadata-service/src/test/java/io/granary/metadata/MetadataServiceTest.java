package io.granary.metadata;

import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.devstack.testing.KafkaResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
class MetadataServiceTest {

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    KafkaCompanion kafka;

    @BeforeEach
    void connect() {
        kafka = new KafkaCompanion(bootstrap);
    }

    @AfterEach
    void close() {
        kafka.close();
    }

    @Test
    void reportsHealthyWithItsKafkaChannelsUp() {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body(containsString("worker-heartbeats"));
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().when().get("/q/openapi").then().statusCode(200).body(containsString("metadata-service"));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void aMalformedHeartbeatGoesToTheDeadLetterTopicAndTheNextOneIsConsumed() {
        String good = """
                {"workerId":"w-dlq","node":"n1","address":"http://127.0.0.1:8082","labels":{},"tiers":[],
                 "hits":0,"misses":0,"bytesServed":0,"underStoreBytesRead":0,"at":"2026-11-22T10:00:00Z"}""";
        kafka.produceStrings().fromRecords(
                new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-dlq", "{not json"),
                new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-dlq", good)).awaitCompletion();

        ConsumerRecord<String, String> dead = kafka.consumeStrings()
                .fromTopics(Topics.DEADLETTER, 1, Duration.ofSeconds(60)).awaitCompletion().getFirstRecord();
        assertThat(dead.value()).isEqualTo("{not json");
        assertThat(new String(dead.headers().lastHeader(DeadLetter.REASON_HEADER).value(), StandardCharsets.UTF_8))
                .isNotBlank();
        assertThat(new String(dead.headers().lastHeader(DeadLetter.TOPIC_HEADER).value(), StandardCharsets.UTF_8))
                .isEqualTo(Topics.WORKER_HEARTBEATS);

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                given().when().get("/q/metrics").then().statusCode(200)
                        .body(containsString("granary_events_consumed_total{topic=\"granary.worker.heartbeats\"} 1.0")));
    }
}
