package io.granary.gateway.api;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.gateway.s3.SdkClients;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the CLI and the console show of the cache, through the gateway's management API, over two real workers: how
 * much of each file is cached (a block held by both counts once), what readers read, and each worker's counters.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CacheViewTest {

    private static final int LARGE = 3 * 1024 * 1024 + 1000;
    private static final int SMALL = 500_000;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "granary.allowed-roots")
    Path root;

    @BeforeAll
    void aDatasetOfTwoReplicas() throws IOException {
        Path dir = Files.createDirectories(root.resolve("twice/shards"));
        Random random = new Random(11);
        byte[] large = new byte[LARGE];
        random.nextBytes(large);
        Files.write(dir.resolve("large.bin"), large);
        byte[] small = new byte[SMALL];
        random.nextBytes(small);
        Files.write(dir.resolve("small.bin"), small);
        Datasets.createBound(gateway, Identities.ADMIN.authorization(), "{\"name\":\"twice\",\"blockSize\":\"1MiB\","
                + "\"replicas\":2,\"mounts\":[" + Datasets.localMount(root.resolve("twice")) + "]}");
    }

    @Test
    @Order(1)
    void aListingCountsEachCachedBlockOnceAndFollowsAFree() {
        assertThat(cached()).containsExactlyInAnyOrderEntriesOf(Map.of("shards/large.bin", 0, "shards/small.bin", 0));

        String id = admin().contentType(ContentType.JSON)
                .body(Map.of("dataset", "twice", "targets", List.of(Map.of("path", ""))))
                .post("/api/v1/dataloads").then().statusCode(202).extract().path("id");
        await().atMost(Duration.ofSeconds(60)).until(() ->
                "Complete".equals(admin().get("/api/v1/dataloads/" + id).path("phase")));

        assertThat(cached()).as("two replicas of every block, each counted once")
                .containsExactlyInAnyOrderEntriesOf(Map.of("shards/large.bin", LARGE, "shards/small.bin", SMALL));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(admin().get("/api/v1/datasets/twice").jsonPath().getLong("status.cachedBytes"))
                        .as("the dataset's cached bytes count every replica").isEqualTo(2L * (LARGE + SMALL)));

        admin().delete("/api/v1/datasets/twice/cache?path=shards/large.bin").then().statusCode(202);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(cached())
                .containsExactlyInAnyOrderEntriesOf(Map.of("shards/large.bin", 0, "shards/small.bin", SMALL)));
    }

    @Test
    @Order(2)
    void readsShowAsTheDatasetsBytesReadAndTheWorkersCounters() {
        long before = admin().get("/api/v1/datasets/twice").jsonPath().getLong("status.bytesRead");
        // The token the console holds opens no object: S3 wants a signature.
        given().header("Authorization", Identities.ADMIN.authorization())
                .get(gateway.resolve("/twice/shards/small.bin")).then().statusCode(400);
        try (S3Client s3 = SdkClients.of(gateway, Identities.ADMIN)) {
            for (int i = 0; i < 3; i++) {
                assertThat(s3.getObjectAsBytes(b -> b.bucket("twice").key("shards/small.bin")).asByteArray())
                        .hasSize(SMALL);
            }
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                admin().get("/api/v1/datasets/twice").jsonPath().getLong("status.bytesRead"))
                .isGreaterThanOrEqualTo(before + 3L * SMALL));

        JsonPath workers = admin().get("/api/v1/workers").jsonPath();
        assertThat(workers.getList("findAll { it.live }")).hasSize(2);
        assertThat(workers.getList("startedAt")).doesNotContainNull();
        assertThat(workers.getList("bytesServed", Long.class).stream().mapToLong(Long::longValue).sum())
                .isGreaterThanOrEqualTo(3L * SMALL);
        assertThat(workers.getList("hits", Long.class).stream().mapToLong(Long::longValue).sum()).isPositive();
    }

    private Map<String, Integer> cached() {
        return admin().get("/api/v1/datasets/twice/files?prefix=shards/&cached=true").then().statusCode(200)
                .extract().path("cachedBytes");
    }

    private RequestSpecification admin() {
        return given().baseUri(gateway.toString()).header("Authorization", Identities.ADMIN.authorization());
    }
}
