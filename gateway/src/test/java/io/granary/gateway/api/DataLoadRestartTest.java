package io.granary.gateway.api;

import io.granary.contracts.dataload.DataLoadApi;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.InjectStack;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A DataLoad's status polled while the preload-service that runs it restarts: a load lives with the replica that
 * took it, so the gateway answers from the last status the load published, marked stale, instead of 503 (which a
 * client polling it would count as a failed call); once the service is back it answers again. A DataLoad created
 * meanwhile waits for the service instead of a 503.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
class DataLoadRestartTest {

    @InjectStack
    StackResource stack;

    @Inject
    PublishedStatuses statuses;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "granary.allowed-roots")
    Path root;

    @Test
    void aStatusPollDuringAPreloadServiceRestartIsAnsweredFromTheLastStatusPublished() throws Exception {
        Path dir = Files.createDirectories(root.resolve("restarted"));
        Files.write(dir.resolve("a.bin"), new byte[300_000]);
        Datasets.createBound(gateway, Identities.ADMIN.authorization(), "{\"name\":\"restarted\",\"blockSize\":"
                + "\"1MiB\",\"mounts\":[" + Datasets.localMount(dir) + "]}");
        String id = as(Identities.ADMIN).contentType(ContentType.JSON)
                .body(Map.of("dataset", "restarted", "targets", List.of(Map.of("path", ""))))
                .post(DataLoadApi.DATALOADS).then().statusCode(202).extract().path("id");
        await().atMost(Duration.ofSeconds(60)).until(() ->
                "Complete".equals(as(Identities.ADMIN).get(DataLoadApi.DATALOADS + "/" + id).path("phase")));
        await().atMost(Duration.ofSeconds(30)).until(() -> statuses.last(id)
                .filter(status -> status.phase() == DataLoadPhase.COMPLETE).isPresent());  // Kafka's copy, here

        stack.kill("preload-service");
        CompletableFuture<Response> createdMeanwhile;
        try {
            Response stale = as(Identities.ADMIN).get(DataLoadApi.DATALOADS + "/" + id);
            assertThat(stale.statusCode()).isEqualTo(200);
            assertThat(stale.header(DataLoadApi.STALE_HEADER)).as("marked as the last status published").isNotBlank();
            assertThat(stale.jsonPath().getString("id")).isEqualTo(id);
            assertThat(stale.jsonPath().getString("phase")).isEqualTo("Complete");

            // Only to a caller who may see the load's dataset; other calls say the service is away.
            as(Identities.TEAM_A_READER).get(DataLoadApi.DATALOADS + "/" + id).then().statusCode(503);
            as(Identities.ADMIN).get(DataLoadApi.DATALOADS + "/no-such-load").then().statusCode(503)
                    .header("Retry-After", "2");

            // A load created now, while nothing takes connections on the service's port, is held, not refused.
            createdMeanwhile = CompletableFuture.supplyAsync(() -> as(Identities.ADMIN).contentType(ContentType.JSON)
                    .body(Map.of("dataset", "restarted", "targets", List.of(Map.of("path", ""))))
                    .post(DataLoadApi.DATALOADS));
        } finally {
            stack.startAgain("preload-service");
        }
        Response created = createdMeanwhile.get(120, TimeUnit.SECONDS);
        assertThat(created.statusCode()).as("sent once the service was back: %s", created.body().asString())
                .isEqualTo(202);
        String later = created.path("id");
        await().atMost(Duration.ofSeconds(60)).until(() ->
                "Complete".equals(as(Identities.ADMIN).get(DataLoadApi.DATALOADS + "/" + later).path("phase")));

        Response fresh = as(Identities.ADMIN).get(DataLoadApi.DATALOADS + "/" + id);
        assertThat(fresh.statusCode()).isEqualTo(200);
        assertThat(fresh.header(DataLoadApi.STALE_HEADER)).isNull();
        assertThat(fresh.jsonPath().getString("phase")).isEqualTo("Complete");
    }

    private static RequestSpecification as(Identities.Identity who) {
        return given().header("Authorization", who.authorization());
    }
}
