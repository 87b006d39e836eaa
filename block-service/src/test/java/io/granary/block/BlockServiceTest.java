package io.granary.block;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Medium;
import io.granary.devstack.testing.KafkaResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
class BlockServiceTest {

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Inject
    ObjectMapper json;

    @Test
    void reportsHealthy() {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body(containsString("dataset-events"));
        given().when().get("/q/openapi").then().statusCode(200).body(containsString("block-service"));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void heartbeatsCarryTheConfiguredLevels() throws Exception {
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            String value = kafka.consumeStrings().fromTopics(Topics.WORKER_HEARTBEATS, 1, Duration.ofSeconds(60))
                    .awaitCompletion().getFirstRecord().value();
            HeartbeatEvent heartbeat = json.readValue(value, HeartbeatEvent.class);
            assertThat(heartbeat.workerId()).startsWith("worker-");
            assertThat(heartbeat.tiers()).extracting(tier -> tier.medium()).containsExactly(Medium.MEM, Medium.SSD);
            assertThat(heartbeat.tiers().get(0).quotaBytes()).isEqualTo(512L * 1024 * 1024);
        }
    }
}
