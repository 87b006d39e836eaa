package io.granary.metadata;

import io.granary.contracts.events.Topics;
import io.granary.devstack.testing.KafkaResource;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.S3Resource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = S3Resource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = MetadataStateResource.class, restrictToAnnotatedClass = false)
class MetadataServiceTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

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
                .body(containsString(Topics.WORKER_HEARTBEATS));
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
        given().when().get("/q/openapi").then().statusCode(200).body(containsString("metadata-service"));
        given().when().get("/q/metrics").then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }
}
