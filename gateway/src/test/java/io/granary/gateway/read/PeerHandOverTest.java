package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.Metrics;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Blocks change owners when workers join or leave: the new owner of a block another worker holds takes it from that
 * worker, not from the under-store. Two real workers; the second misses blocks the first holds.
 */
@QuarkusTest
@QuarkusTestResource(value = StackResource.class, restrictToAnnotatedClass = false, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
class PeerHandOverTest {

    private static final int MIB = 1024 * 1024;
    private static final int SIZE = 2 * MIB + MIB / 2;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "test.block-service-url")
    URI first;

    @ConfigProperty(name = "test.block-service-2-url")
    URI second;

    @ConfigProperty(name = "granary.allowed-roots")
    Path root;

    @Test
    void aWorkerMissingABlockAnotherHoldsTakesItFromThatWorkerNotTheStore() throws IOException {
        byte[] content = new byte[SIZE];
        new Random(5).nextBytes(content);
        Files.write(Files.createDirectories(root.resolve("handover")).resolve("shard.bin"), content);
        Datasets.createBound(gateway, Identities.ADMIN.authorization(), "{\"name\":\"handover\",\"blockSize\":\"1MiB\","
                + "\"mounts\":[" + Datasets.localMount(root.resolve("handover")) + "]}");
        String etag = given().baseUri(gateway.toString()).header("Authorization", Identities.ADMIN.authorization())
                .get("/api/v1/datasets/handover/files/shard.bin").then().statusCode(200).extract().path("etag");
        // The second worker asked to hand over what it does not hold: 404, and nothing filled.
        double storeReadsOfSecond = Metrics.sum(Metrics.FETCHED_FROM_STORE, second);
        block(second, etag, 0, true).then().statusCode(404);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, second)).isEqualTo(storeReadsOfSecond);

        for (int index = 0; index < 3; index++) {
            assertThat(block(first, etag, index, false).then().statusCode(200).extract().asByteArray())
                    .isEqualTo(slice(content, index));
        }
        // The second worker learns from the metadata-service who caches the dataset (block events, then its cache).
        await().atMost(Duration.ofSeconds(30)).until(() -> given().baseUri(gateway.toString())
                .header("Authorization", Identities.ADMIN.authorization()).get("/api/v1/datasets/handover/nodes")
                .jsonPath().getList("findAll { it.cachedBytes > 0 }").size() > 0);
        double storeBytes = Metrics.sum(Metrics.FETCHED_FROM_STORE, second);
        double handedOver = Metrics.sum(Metrics.FETCHED_FROM_PEERS, second);

        for (int index = 0; index < 3; index++) {
            Response taken = block(second, etag, index, false);
            assertThat(taken.statusCode()).isEqualTo(200);
            assertThat(taken.header(BlockApi.CACHE_HEADER)).isEqualTo(BlockApi.MISS);
            assertThat(taken.asByteArray()).isEqualTo(slice(content, index));
        }

        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, second)).as("nothing read from the store")
                .isEqualTo(storeBytes);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_PEERS, second) - handedOver).isEqualTo(SIZE);
        assertThat(block(second, etag, 2, false).header(BlockApi.CACHE_HEADER)).isEqualTo(BlockApi.HIT);
    }

    private static Response block(URI worker, String etag, int index, boolean heldOnly) {
        var request = given().baseUri(worker.toString()).header("Authorization", Identities.CLUSTER_AUTHORIZATION);
        if (heldOnly) {
            request.header(BlockApi.HELD_ONLY_HEADER, "true");
        }
        return request.urlEncodingEnabled(false).get(BlockApi.blockUri("handover", index, "shard.bin", etag));
    }

    private static byte[] slice(byte[] content, int index) {
        return Arrays.copyOfRange(content, index * MIB, Math.min(content.length, (index + 1) * MIB));
    }
}
