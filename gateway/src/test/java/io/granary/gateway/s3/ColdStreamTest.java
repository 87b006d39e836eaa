package io.granary.gateway.s3;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.testing.Bodies;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.S3Resource;
import io.granary.devstack.testing.StackResource;
import io.granary.devstack.testing.StoreProxy;
import io.granary.gateway.GatewayStack;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.read.ShortCircuit;
import io.granary.kit.client.LiveWorkers;
import io.granary.ufs.Credentials;
import io.granary.ufs.S3Location;
import io.granary.ufs.S3UnderStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cold read through the gateway, whose worker on this node fills the block: the client's first bytes leave while
 * the store is still sending the block, and a store that breaks off mid-block costs the client nothing (the rest
 * is read around the fill) and leaves nothing torn in the cache; an owner on another node whose fill waits on the
 * store is waited on, not read around. The store is S3Proxy behind a proxy that holds or cuts its answer; the shard
 * read is one the worker on this node owns, or the other worker (it stands for another node).
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
class ColdStreamTest {

    private static final int MIB = 1 << 20;
    /** Enough that one of them is owned by the worker on this node but once in 2^16 runs (two workers). */
    private static final int SHARDS = 16;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @Inject
    LiveWorkers workers;

    @Inject
    NearCache near;

    @Inject
    ShortCircuit shortCircuit;

    @Inject
    MeterRegistry metrics;

    @Test
    void aColdReadsFirstBytesLeaveWhileTheStoreIsStillSendingTheBlock() throws Exception {
        URI store = URI.create(s3);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            Map<String, byte[]> shards = seedShards("cold-held", 4 * MIB, proxy);
            String key = ownedHere("cold-held", shards.keySet());
            byte[] content = shards.get(key);
            proxy.holdNextAnswerAfter(MIB);
            HttpResponse<InputStream> response = HTTP.send(get("/cold-held/" + key),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(proxy.awaitHolding(20)).as("the store stops at 1 MiB of the block").isTrue();
                byte[] first = Bodies.firstBytes(body, 256 * 1024, Duration.ofSeconds(20));
                assertThat(first).isEqualTo(Arrays.copyOf(content, first.length));
                proxy.release();
                assertThat(body.readAllBytes()).isEqualTo(Arrays.copyOfRange(content, first.length, content.length));
            } finally {
                proxy.release();
            }
        }
    }

    @Test
    void aStoreThatBreaksOffMidBlockCostsTheClientNoByteAndCachesNothingTorn() throws Exception {
        URI store = URI.create(s3);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            Map<String, byte[]> shards = seedShards("cold-cut", 2 * MIB, proxy);
            String key = ownedHere("cold-cut", shards.keySet());
            byte[] content = shards.get(key);
            proxy.cutNextAnswerAfter(700 * 1024);
            HttpResponse<byte[]> response = HTTP.send(get("/cold-cut/" + key), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).as("every byte, the rest read around the broken fill").isEqualTo(content);
            // Read again: from the cache if a later fill stored it, never a torn block.
            assertThat(HTTP.send(get("/cold-cut/" + key), HttpResponse.BodyHandlers.ofByteArray()).body())
                    .isEqualTo(content);
        }
    }

    @Test
    void anOwnerWhoseFillWaitsOnTheStoreIsWaitedOnAndTheStoreSendsTheBlockOnce() throws Exception {
        URI store = URI.create(s3);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            Map<String, byte[]> shards = seedShards("cold-busy", 2 * MIB, proxy);
            String key = ownedElsewhere("cold-busy", shards.keySet());
            double busy = silentOwners("busy");
            double gone = silentOwners("gone");
            // The owner's fill gets not even the store's status line: it sends the gateway nothing, and is alive.
            proxy.holdNextAnswerTo("GET /cold-busy/" + key, 1);
            CompletableFuture<HttpResponse<byte[]>> response = HTTP.sendAsync(get("/cold-busy/" + key),
                    HttpResponse.BodyHandlers.ofByteArray());
            try {
                assertThat(proxy.awaitHolding(20)).as("the owner's fill waits on the store").isTrue();
                await().atMost(Duration.ofSeconds(20)).until(() -> silentOwners("busy") > busy);
            } finally {
                proxy.release();
            }
            assertThat(response.get(20, TimeUnit.SECONDS).body()).isEqualTo(shards.get(key));
            assertThat(proxy.requests()).as("one store read of the block: the owner's fill, asked for twice")
                    .filteredOn(line -> line.startsWith("GET /cold-busy/" + key)).hasSize(1);
            assertThat(silentOwners("gone")).isEqualTo(gone);
        }
    }

    /**
     * Owners a read found silent here so far, by verdict (busy: asked again; gone: read around). The gateway
     * registers both when it starts: a missing one fails the test rather than reading as 0.
     */
    private double silentOwners(String verdict) {
        return metrics.get("granary.read.silent.owners").tag("verdict", verdict).counter().count();
    }

    /**
     * Shards of one block each in a dataset over the proxy: the store's answers to the worker on this node pass it,
     * which is whom the gateway asks to fill a block it owns (a worker elsewhere is read over HTTP instead).
     */
    private Map<String, byte[]> seedShards(String dataset, int size, StoreProxy proxy) throws Exception {
        Map<String, byte[]> shards = new HashMap<>();
        for (int i = 0; i < SHARDS; i++) {
            shards.put("shard-" + i + ".bin", seed(dataset, "shard-" + i + ".bin", size, dataset.hashCode() + i));
        }
        Datasets.createBound(gateway, Datasets.spec(dataset, size / MIB + "MiB",
                Datasets.s3Mount(dataset, proxy.endpoint())));
        return shards;
    }

    /**
     * A shard whose block the worker on this node owns first; waited for while that worker is suspected (a test
     * before this one may have broken a read of it).
     */
    private String ownedHere(String dataset, Iterable<String> keys) {
        await().atMost(Duration.ofSeconds(60)).until(() -> findOwned(dataset, keys, true) != null);
        return findOwned(dataset, keys, true);
    }

    /** A shard whose block the other worker owns first: the gateway reads it over HTTP. */
    private String ownedElsewhere(String dataset, Iterable<String> keys) {
        await().atMost(Duration.ofSeconds(60)).until(() -> findOwned(dataset, keys, false) != null);
        return findOwned(dataset, keys, false);
    }

    private String findOwned(String dataset, Iterable<String> keys, boolean here) {
        for (String key : keys) {
            FileInfo file = near.file(dataset, key).orElseThrow();
            Worker first = workers.owners(BlockId.of(dataset, key, file.etag(), 0).toString(), Map.of(), 1).get(0);
            if (shortCircuit.reaches(first) == here) {
                return key;
            }
        }
        return null;
    }

    private HttpRequest get(String path) {
        return Signed.request(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY, "GET", path, null, sign -> { })
                .timeout(Duration.ofSeconds(20)).GET().build();
    }

    /** Uploads through S3, so the object has the etag S3 gives and honours If-Match on it. */
    private byte[] seed(String bucket, String key, int size, long seed) throws Exception {
        byte[] content = new byte[size];
        new Random(seed).nextBytes(content);
        Files.createDirectories(buckets.resolve(bucket));  // with the filesystem backend a bucket is a directory
        try (S3UnderStore s3Store = new S3UnderStore(new S3Location(URI.create(s3), "us-east-1", bucket, "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
            s3Store.write(key, new ByteArrayInputStream(content), size);
        }
        return content;
    }
}
