package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.Metrics;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.kit.blockfile.BlockFiles;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Blocks change owners when workers join or leave: the new owner of a block another worker holds takes it from that
 * worker, not from the under-store. Two real workers; the second misses blocks the first holds.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
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

    @Test
    void aBlockDamagedOnTheGiversDiskIsReadFromTheStoreNotHandedOver() throws IOException {
        // Damage at rest that left the file's seal (its modification time) as it was: only its checksum tells.
        byte[] content = new byte[SIZE];
        new Random(6).nextBytes(content);
        Files.write(Files.createDirectories(root.resolve("rot")).resolve("shard.bin"), content);
        Datasets.createBound(gateway, Identities.ADMIN.authorization(), "{\"name\":\"rot\",\"blockSize\":\"1MiB\","
                + "\"mounts\":[" + Datasets.localMount(root.resolve("rot")) + "]}");
        String etag = given().baseUri(gateway.toString()).header("Authorization", Identities.ADMIN.authorization())
                .get("/api/v1/datasets/rot/files/shard.bin").then().statusCode(200).extract().path("etag");
        assertThat(block(first, etag, 1, false, "rot").then().statusCode(200).extract().asByteArray())
                .isEqualTo(slice(content, 1));
        Path file = blockFile(first, "rot", BlockId.of("rot", "shard.bin", etag, 1).toString());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[4096]), 1000);
        }
        Files.setLastModifiedTime(file, BlockFiles.SEALED);
        await().atMost(Duration.ofSeconds(30)).until(() -> given().baseUri(gateway.toString())
                .header("Authorization", Identities.ADMIN.authorization()).get("/api/v1/datasets/rot/nodes")
                .jsonPath().getList("findAll { it.cachedBytes > 0 }").size() > 0);
        double storeBytes = Metrics.sum(Metrics.FETCHED_FROM_STORE, second);

        Response taken = block(second, etag, 1, false, "rot");

        assertThat(taken.statusCode()).isEqualTo(200);
        assertThat(taken.asByteArray()).as("the store's bytes, not the damaged copy").isEqualTo(slice(content, 1));
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, second) - storeBytes).isEqualTo(MIB);
        assertThat(block(second, etag, 1, false, "rot").asByteArray()).as("and kept whole")
                .isEqualTo(slice(content, 1));
    }

    /** The block's file in whichever of the worker's levels holds it. */
    private static Path blockFile(URI worker, String dataset, String blockId) {
        List<String> levels = given().baseUri(worker.toString())
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION).get("/blocks/stats").jsonPath()
                .getList("levels.path");
        return levels.stream().map(level -> BlockFiles.blockFile(level, dataset, blockId)).filter(Files::exists)
                .findFirst().orElseThrow(() -> new AssertionError("no level of " + worker + " holds " + blockId));
    }

    private static Response block(URI worker, String etag, int index, boolean heldOnly) {
        return block(worker, etag, index, heldOnly, "handover");
    }

    private static Response block(URI worker, String etag, int index, boolean heldOnly, String dataset) {
        var request = given().baseUri(worker.toString()).header("Authorization", Identities.CLUSTER_AUTHORIZATION);
        if (heldOnly) {
            request.header(BlockApi.HELD_ONLY_HEADER, "true");
        }
        return request.urlEncodingEnabled(false).get(BlockApi.blockUri(dataset, index, "shard.bin", etag));
    }

    private static byte[] slice(byte[] content, int index) {
        return Arrays.copyOfRange(content, index * MIB, Math.min(content.length, (index + 1) * MIB));
    }
}
