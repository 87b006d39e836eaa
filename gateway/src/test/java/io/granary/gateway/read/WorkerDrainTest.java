package io.granary.gateway.read;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.Metrics;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.gateway.s3.SdkClients;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A worker asked to leave hands its blocks to their next owners before it drops them: afterwards every byte is
 * read with no under-store read and the dataset caches as much as before. Asked to rejoin, it takes back the blocks
 * placement gives it from the worker that holds them, again without the under-store. Two real workers.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
class WorkerDrainTest {

    private static final String LEAVING = "block-service";

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "test.block-service-url")
    URI first;

    @ConfigProperty(name = "test.block-service-2-url")
    URI second;

    @ConfigProperty(name = "granary.allowed-roots")
    Path root;

    @Test
    void aDrainedWorkerLosesNoBlockAndARejoinedOneTakesItsShareBackFromItsPeer() throws IOException {
        Map<String, byte[]> files = dataset();
        long total = files.values().stream().mapToLong(content -> content.length).sum();
        String load = admin().contentType(ContentType.JSON)
                .body(Map.of("dataset", "leaving", "targets", List.of(Map.of("path", ""))))
                .post("/api/v1/dataloads").then().statusCode(202).extract().path("id");
        await().atMost(Duration.ofSeconds(60)).until(() ->
                "Complete".equals(admin().get("/api/v1/dataloads/" + load).path("phase")));
        await().atMost(Duration.ofSeconds(30)).until(() -> cachedBytes() == total);

        double storeFirst = Metrics.sum(Metrics.FETCHED_FROM_STORE, first);
        double storeSecond = Metrics.sum(Metrics.FETCHED_FROM_STORE, second);
        admin().post("/api/v1/workers/" + LEAVING + "/drain").then().statusCode(202)
                .body("phase", equalTo("Draining"));
        await().atMost(Duration.ofSeconds(60)).until(() -> "Drained".equals(
                admin().get("/api/v1/workers").jsonPath().getString("find { it.id == '" + LEAVING + "' }.drain.phase")));
        Map<String, Object> drain = admin().get("/api/v1/workers").jsonPath()
                .getMap("find { it.id == '" + LEAVING + "' }.drain");
        assertThat((Integer) drain.get("blocks")).as("the blocks placement gave it").isPositive();
        assertThat(drain.get("failed")).isEqualTo(0);
        assertThat(drain.get("moved")).isEqualTo(drain.get("blocks"));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(cachedBytes()).as("moved, not copied or lost").isEqualTo(total);
            assertThat(given().baseUri(first.toString()).header("Authorization", Identities.CLUSTER_AUTHORIZATION)
                    .get("/blocks/stats").jsonPath().<Object>get("cachedBytes.leaving")).as("the drained worker").isNull();
        });

        // Leaving, it takes nothing more: what it took now would be dropped with the rest.
        given().baseUri(first.toString()).header("Authorization", Identities.CLUSTER_AUTHORIZATION)
                .contentType(ContentType.JSON).body(Map.of("dataset", "leaving", "blocks", List.of()))
                .post("/blocks/fill").then().statusCode(409).body("field", equalTo("worker"));

        readEverything(files);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, first)).isEqualTo(storeFirst);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, second)).isEqualTo(storeSecond);

        admin().delete("/api/v1/workers/" + LEAVING + "/drain").then().statusCode(204);
        await().atMost(Duration.ofSeconds(30)).until(() -> admin().get("/api/v1/workers").jsonPath()
                .get("find { it.id == '" + LEAVING + "' }.drain") == null);
        double takenBack = Metrics.sum(Metrics.FETCHED_FROM_PEERS, first);
        readEverything(files);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, first)).isEqualTo(storeFirst);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, second)).isEqualTo(storeSecond);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_PEERS, first)).as("its share, from its peer")
                .isGreaterThan(takenBack);
    }

    private Map<String, byte[]> dataset() throws IOException {
        Path dir = Files.createDirectories(root.resolve("leaving/part"));
        Random random = new Random(13);
        Map<String, byte[]> files = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            byte[] content = new byte[i == 0 ? 2 * 1024 * 1024 + 777 : 200_000 + i * 1000];
            random.nextBytes(content);
            Files.write(dir.resolve("f" + i + ".bin"), content);
            files.put("part/f" + i + ".bin", content);
        }
        Datasets.createBound(gateway, Identities.ADMIN.authorization(), "{\"name\":\"leaving\",\"blockSize\":\"1MiB\","
                + "\"mounts\":[" + Datasets.localMount(root.resolve("leaving")) + "]}");
        return files;
    }

    private void readEverything(Map<String, byte[]> files) {
        try (S3Client s3 = SdkClients.of(gateway, Identities.ADMIN)) {
            files.forEach((key, content) -> assertThat(s3.getObjectAsBytes(b -> b.bucket("leaving").key(key))
                    .asByteArray()).as(key).isEqualTo(content));
        }
    }

    private long cachedBytes() {
        return admin().get("/api/v1/datasets/leaving").jsonPath().getLong("status.cachedBytes");
    }

    private RequestSpecification admin() {
        return given().baseUri(gateway.toString()).header("Authorization", Identities.ADMIN.authorization());
    }
}
