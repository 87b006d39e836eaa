package io.granary.preload;

import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.devstack.testing.KafkaResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
class PreloadServiceTest {

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void reportsHealthy() {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body(containsString("preload-requests"));
        given().when().get("/q/openapi").then().statusCode(200).body(containsString("preload-service"));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void anInvalidRequestIsDeadLetteredWithItsReasonAndTheNextIsRead() {
        String invalid = """
                {"requestId":"r-1","dataset":"Not_A_Name","targets":[{"path":"/train","replicas":1}]}""";
        String valid = """
                {"requestId":"r-2","dataset":"imagenet","targets":[{"path":"/train","replicas":1}]}""";
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            kafka.produceStrings().fromRecords(
                    new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "x", invalid),
                    new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "imagenet", valid)).awaitCompletion();

            List<ConsumerRecord<String, String>> dead = kafka.consumeStrings()
                    .fromTopics(Topics.DEADLETTER, 1, Duration.ofSeconds(60)).awaitCompletion().getRecords();
            assertThat(dead).extracting(ConsumerRecord::value).containsExactly(invalid);
            assertThat(new String(dead.get(0).headers().lastHeader(DeadLetter.REASON_HEADER).value(), StandardCharsets.UTF_8))
                    .contains("dataset");
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                given().when().get("/q/metrics").then()
                        .body(containsString("granary_events_consumed_total{topic=\"granary.preload.requests\"} 1.0")));
    }
}
