package io.granary.block;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockKey;
import io.granary.block.store.Admission;
import io.granary.block.store.BlockListener;
import io.granary.block.store.LevelSpec;
import io.granary.block.store.LruPolicy;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Medium;
import io.granary.devstack.testing.Bodies;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.KafkaRecords;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.devstack.testing.StoreProxy;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.granary.block.Fixtures.getBlock;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * The worker against a real metadata-service (child JVM), a real S3 server as under-store and a real Kafka broker.
 * Under-store reads are counted by the worker itself ({@link ReadStats}, also {@code granary_understore_reads_total}).
 */
@QuarkusTest
@QuarkusTestResource(value = StackResource.class, restrictToAnnotatedClass = false,
        initArgs = @ResourceArg(name = "services", value = "metadata-service"))
class BlockWorkerTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    private static final int MIB = 1 << 20;
    private static final Map<String, byte[]> CONTENT = new HashMap<>();
    private static Map<String, String> etags;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @ConfigProperty(name = "granary.metadata-url")
    String metadata;

    @ConfigProperty(name = "test.work-dir")
    Path work;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @TestHTTPResource("/")
    URL base;

    @Inject
    ReadStats stats;

    @Inject
    MeterRegistry registry;

    @Inject
    ObjectMapper json;

    /** One dataset of 1 MiB blocks: small files, a block-aligned 4 MiB file and a 3.5 MiB + 123 B one. */
    private synchronized void reads() {
        if (etags != null) {
            return;
        }
        for (int i = 0; i < 12; i++) {
            CONTENT.put("small/f-" + i, Fixtures.seed(buckets, s3, "reads", "small/f-" + i, 1 + i * 17_000, i));
        }
        CONTENT.put("large/aligned", Fixtures.seed(buckets, s3, "reads", "large/aligned", 4 * MIB, 100));
        CONTENT.put("large/odd", Fixtures.seed(buckets, s3, "reads", "large/odd", 3 * MIB + MIB / 2 + 123, 101));
        etags = Fixtures.dataset(metadata, s3, "reads", "reads", "1MiB");
        assertThat(etags.keySet()).containsExactlyInAnyOrderElementsOf(CONTENT.keySet());
    }

    @Test
    void aSecondReadIsServedFromTheCacheWithIdenticalBytes() {
        reads();
        given().delete("/blocks/reads").then().statusCode(200);  // whatever other tests left: start cold
        long before = stats.underStoreReadCount();
        Map<FillStages.Stage, Long> stagesBefore = fillStageCounts();
        Map<String, byte[]> first = readEverything("miss");
        long fills = stats.underStoreReadCount() - before;
        assertThat(fills).as("one under-store read per block").isEqualTo(12 + 4 + 4);
        // Every fill is timed in every stage: the cold path's breakdown (bench/run.sh prints it).
        fillStageCounts().forEach((stage, count) ->
                assertThat(count - stagesBefore.get(stage)).as("fills timed in " + stage).isEqualTo(fills));

        Map<String, byte[]> second = readEverything("hit");
        assertThat(stats.underStoreReadCount() - before).as("the second pass never reads the under-store")
                .isEqualTo(fills);
        for (String path : CONTENT.keySet()) {
            assertThat(first.get(path)).as(path).isEqualTo(CONTENT.get(path));
            assertThat(second.get(path)).as(path).isEqualTo(CONTENT.get(path));
        }
        given().get("/q/metrics").then().body(containsString("granary_understore_requests_total{op=\"read\"}"))
                .body(containsString("granary_block_reads_total{level=\"MEM\",result=\"hit\"}"));
    }

    private Map<FillStages.Stage, Long> fillStageCounts() {
        Map<FillStages.Stage, Long> counts = new java.util.EnumMap<>(FillStages.Stage.class);
        for (FillStages.Stage stage : FillStages.Stage.values()) {
            counts.put(stage, registry.get("granary.block.fill.stage").tag("stage", stage.name().toLowerCase())
                    .timer().count());
        }
        return counts;
    }

    @Test
    void aRestartedWorkerFindsEveryBlockItHeld() {
        reads();
        readEverything(null);
        int held = given().get("/blocks/stats").jsonPath().getInt("blocks");

        // What the worker does when it starts: open its levels and index what is there, checksumming each block.
        BlockStore restarted = BlockStore.open(List.of(
                        new LevelSpec(Medium.MEM, List.of(work.resolve("levels/mem")), 160L * MIB, 0.95, 0.7),
                        new LevelSpec(Medium.SSD, List.of(work.resolve("levels/ssd")), 512L * MIB, 0.95, 0.7)),
                LruPolicy::new, Admission.ALWAYS, BlockListener.NONE, true);

        assertThat(restarted.blockCount()).isEqualTo(held);
        for (String path : CONTENT.keySet()) {
            int blocks = (CONTENT.get(path).length + MIB - 1) / MIB;
            for (int index = 0; index < blocks; index++) {
                BlockKey key = new BlockKey("reads", BlockId.of("reads", path, etags.get(path), index));
                assertThat(restarted.find(key)).as("%s block %d", path, index).isPresent();
            }
        }
    }

    @Test
    void reportsHealthyWithMetricsAndOpenApi() {
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"))
                .body(containsString(Topics.DATASET_EVENTS));
        given().get("/q/openapi").then().statusCode(200).body(containsString("/blocks/fill"));
        given().get("/q/metrics").then().statusCode(200).body(containsString("granary_block_singleflight_waits_total"));
    }

    @Test
    void rangesCrossingBlockBoundariesAreServedFromTheBlocksThatHoldThem() {
        reads();
        byte[] odd = CONTENT.get("large/odd");
        String etag = etags.get("large/odd");
        // bytes [MIB - 100, 3 MIB + 50): the end of block 0, all of blocks 1 and 2, the start of block 3
        HttpResponse<byte[]> end0 = getBlock(worker(), "reads", "large/odd", etag, 0, "bytes=-100");
        HttpResponse<byte[]> all1 = getBlock(worker(), "reads", "large/odd", etag, 1, null);
        HttpResponse<byte[]> all2 = getBlock(worker(), "reads", "large/odd", etag, 2, "bytes=0-");
        HttpResponse<byte[]> start3 = getBlock(worker(), "reads", "large/odd", etag, 3, "bytes=0-49");

        assertThat(end0.statusCode()).isEqualTo(206);
        assertThat(end0.headers().firstValue("Content-Range")).hasValue("bytes 1048476-1048575/1048576");
        assertThat(start3.headers().firstValue("Content-Range")).hasValue("bytes 0-49/" + (MIB / 2 + 123));
        byte[] joined = concat(end0.body(), all1.body(), all2.body(), start3.body());
        assertThat(joined).isEqualTo(Arrays.copyOfRange(odd, MIB - 100, 3 * MIB + 50));

        HttpResponse<byte[]> past = getBlock(worker(), "reads", "large/odd", etag, 3, "bytes=600000-");
        assertThat(past.statusCode()).isEqualTo(416);
        assertThat(past.headers().firstValue("Content-Range")).hasValue("bytes */" + (MIB / 2 + 123));
    }

    @Test
    void sixteenConcurrentReadersOfOneUncachedBlockCauseOneUnderStoreRead() throws Exception {
        byte[] big = Fixtures.seed(buckets, s3, "big", "shard-0000.tar", 64 * MIB, 7);
        String expected = Fixtures.sha256(big, 0, big.length);
        big = null;  // keep the test heap small: readers hash streams
        String etag = Fixtures.dataset(metadata, s3, "big", "big", "64MiB").get("shard-0000.tar");
        long before = stats.underStoreReadCount();

        ExecutorService readers = Executors.newFixedThreadPool(16);
        try {
            List<Future<String>> hashes = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                hashes.add(readers.submit(() -> Fixtures.sha256OfBlock(worker(), "big", "shard-0000.tar", etag, 0,
                        64 * MIB)));
            }
            for (Future<String> hash : hashes) {
                assertThat(hash.get()).isEqualTo(expected);
            }
        } finally {
            readers.shutdownNow();
        }
        assertThat(stats.underStoreReadCount() - before).as("single-flight: one fetch for 16 readers").isEqualTo(1);
    }

    /**
     * A reader that fell behind its streamed miss and then caught up with the fill: every byte arrives once, in order.
     * Once the worker's write queue had filled, a drain it signalled while sending the next bytes re-entered the
     * sending loop, which sent a chunk twice and skipped the next (found by bench/scenarios.sh, whose nodes read each
     * other's misses behind a 1 Gbit/s link). The store is held mid-block so that the reader catches up with the fill.
     */
    @Test
    void aReaderThatFellBehindItsFillAndCaughtUpGetsEveryByteOnceInOrder() throws Exception {
        byte[] content = Fixtures.seed(buckets, s3, "behind", "shard", 16 * MIB, 14);
        URI store = URI.create(s3);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            String etag = Fixtures.dataset(metadata, proxy.endpoint(), "behind", "behind", "16MiB").get("shard");
            URI block = Fixtures.sized(Fixtures.blockUri(worker(), "behind", "shard", etag, 0), 16 * MIB);
            proxy.holdNextAnswerAfter(8 * MIB);
            byte[] read = new byte[16 * MIB];
            int at = 0;
            // A socket, not an HTTP client: a client reads ahead of its caller into buffers of its own.
            try (Socket socket = new Socket()) {
                socket.setReceiveBufferSize(64 * 1024);
                socket.connect(new InetSocketAddress(block.getHost(), block.getPort()));
                socket.getOutputStream().write(("GET " + block.getRawPath() + "?" + block.getRawQuery()
                        + " HTTP/1.1\r\nHost: " + block.getHost() + "\r\nAuthorization: "
                        + Identities.CLUSTER_AUTHORIZATION + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                InputStream body = socket.getInputStream();
                assertThat(readHead(body)).startsWith("HTTP/1.1 200")
                        .containsIgnoringCase(BlockApi.CACHE_HEADER + ": " + BlockApi.MISS);
                assertThat(proxy.awaitHolding(10)).isTrue();
                Thread.sleep(500);  // behind: the worker's socket is full, its queue too
                socket.setSoTimeout(1000);
                try {
                    int n;
                    while ((n = body.read(read, at, read.length - at)) > 0) {
                        at += n;  // caught up with the held fill when nothing comes for a second
                    }
                } catch (SocketTimeoutException caughtUp) {
                    // the fill's next bytes are still in the store
                }
                socket.setSoTimeout(0);
                proxy.release();
                int n;
                while (at < read.length && (n = body.read(read, at, read.length - at)) > 0) {
                    at += n;
                }
            }
            assertThat(at).isEqualTo(read.length);
            for (int offset = 0; offset < read.length; offset += 64 * 1024) {
                int end = offset + 64 * 1024;
                assertThat(Arrays.equals(read, offset, end, content, offset, end)).as("bytes %d..%d", offset, end)
                        .isTrue();
            }
        }
    }

    @Test
    void aReaderThatLeavesLeavesEachBlockWholeOrNotAtAll() throws Exception {
        byte[] content = Fixtures.seed(buckets, s3, "leaving", "shard", 16 * MIB, 11);
        String etag = Fixtures.dataset(metadata, s3, "leaving", "leaving", "8MiB").get("shard");
        URI block0 = Fixtures.sized(Fixtures.blockUri(worker(), "leaving", "shard", etag, 0), 16 * MIB);
        URI block1 = Fixtures.sized(Fixtures.blockUri(worker(), "leaving", "shard", etag, 1), 16 * MIB);

        leave(block0, 0);            // gone before the fill could answer
        leave(block1, 64 * 1024);    // gone after the first 64 KiB of the body

        // Whatever the fills were doing when the readers left, they end: no temporary file is left behind.
        await().atMost(Duration.ofSeconds(30)).until(() -> filesOf("leaving").stream()
                .noneMatch(file -> file.getFileName().toString().startsWith(".")));
        for (int index = 0; index < 2; index++) {
            byte[] expected = Arrays.copyOfRange(content, index * 8 * MIB, (index + 1) * 8 * MIB);
            for (Path file : filesOf("leaving")) {
                if (file.getFileName().toString().equals(BlockId.of("leaving", "shard", etag, index).toString())) {
                    assertThat(Files.readAllBytes(file)).as("block %d as stored", index).isEqualTo(expected);
                }
            }
            assertThat(getBlock(worker(), "leaving", "shard", etag, index, null).body()).isEqualTo(expected);
        }
    }

    @Test
    void anObjectReplacedSinceItWasListedIsNeverCachedUnderTheOldVersion() throws Exception {
        Fixtures.seed(buckets, s3, "replaced", "f", 100_000, 1);
        String listed = Fixtures.dataset(metadata, s3, "replaced", "replaced", "1MiB").get("f");
        Fixtures.seed(buckets, s3, "replaced", "f", 100_000, 2);  // a new version, not yet known to the metadata

        assertThat(getBlock(worker(), "replaced", "f", listed, 0, null).statusCode()).isEqualTo(412);
        given().head("/blocks/replaced/0?path=f&etag=" + listed).then().statusCode(412);
        Map<String, Object> load = Map.of("dataset", "replaced", "blocks",
                List.of(Map.of("path", "f", "etag", listed, "index", 0)));
        given().contentType(ContentType.JSON).body(load).post("/blocks/fill").then().statusCode(200)
                .body("failed", equalTo(1)).body("filled", equalTo(0));

        assertThat(filesOf("replaced")).as("nothing stored, not even a temporary file").isEmpty();
    }

    @Test
    void aFillThatFailsHalfWayFailsTheReadAndStoresNothing() throws Exception {
        // A reader that waits for the whole block gets an error the gateway reads around, never a short block.
        byte[] content = Fixtures.seed(buckets, s3, "cut", "f", MIB, 12);
        URI store = URI.create(s3);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            String etag = Fixtures.dataset(metadata, proxy.endpoint(), "cut", "cut", "1MiB").get("f");
            proxy.cutNextAnswerAfter(300 * 1024);
            assertThat(getBlock(worker(), "cut", "f", etag, 0, null).statusCode()).isGreaterThanOrEqualTo(500);
            assertThat(filesOf("cut")).as("nothing stored, not even a temporary file").isEmpty();

            HttpResponse<byte[]> again = getBlock(worker(), "cut", "f", etag, 0, null);
            assertThat(again.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
            assertThat(again.body()).isEqualTo(content);
        }
        // A reader the miss is streamed to had its head and first bytes: its body breaks off, never ends short. The
        // store is held until the head is out (a fill cut before its first bytes is a 5xx, as above), then cut.
        Fixtures.seed(buckets, s3, "cut-streamed", "f", MIB, 13);
        try (StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort())) {
            String etag = Fixtures.dataset(metadata, proxy.endpoint(), "cut-streamed", "cut-streamed", "1MiB")
                    .get("f");
            proxy.holdNextAnswerAfter(100 * 1024);
            HttpRequest streamed = HttpRequest.newBuilder(Fixtures.sized(Fixtures.blockUri(worker(), "cut-streamed",
                    "f", etag, 0), MIB)).header("Authorization", Identities.CLUSTER_AUTHORIZATION).build();
            HttpResponse<InputStream> response = Fixtures.HTTP.send(streamed, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(proxy.awaitHolding(10)).isTrue();
                proxy.cutNextAnswerAfter(100 * 1024);
                proxy.release();
                assertThatThrownBy(body::readAllBytes).isInstanceOf(IOException.class);
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(filesOf("cut-streamed"))
                    .as("nothing stored, not even a temporary file").isEmpty());
        }
    }

    /** The response head, up to and without its blank line; the stream is left at the body's first byte. */
    private static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the connection ended in the head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** One 4 MiB file in a dataset of 4 MiB blocks whose store answers the worker through a proxy that can hold it. */
    private record HeldFile(StoreProxy proxy, byte[] content, String etag, URI block) implements AutoCloseable {

        @Override
        public void close() throws IOException {
            proxy.release();
            proxy.close();
        }
    }

    private HeldFile heldFile(String dataset, long seed) throws IOException {
        byte[] content = Fixtures.seed(buckets, s3, dataset, "f", 4 * MIB, seed);
        URI store = URI.create(s3);
        StoreProxy proxy = new StoreProxy(store.getHost(), store.getPort());
        String etag = Fixtures.dataset(metadata, proxy.endpoint(), dataset, dataset, "4MiB").get("f");
        return new HeldFile(proxy, content, etag,
                Fixtures.sized(Fixtures.blockUri(worker(), dataset, "f", etag, 0), 4 * MIB));
    }

    /** A request of the worker, as another service of the cluster. */
    private static HttpRequest.Builder asCluster(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION);
    }

    @Test
    void aMissesFirstBytesReachTheReaderWhileTheStoreIsStillSending() throws Exception {
        try (HeldFile held = heldFile("slow", 13)) {
            held.proxy().holdNextAnswerAfter(MIB);
            HttpResponse<InputStream> response = Fixtures.HTTP.send(asCluster(held.block())
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
                assertThat(held.proxy().awaitHolding(10)).as("the store stops at 1 MiB of the block").isTrue();
                byte[] first = Bodies.firstBytes(body, 256 * 1024, Duration.ofSeconds(10));
                assertThat(first).isEqualTo(Arrays.copyOf(held.content(), first.length));
                held.proxy().release();
                byte[] rest = body.readAllBytes();
                assertThat(rest).isEqualTo(Arrays.copyOfRange(held.content(), first.length, held.content().length));
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(getBlock(worker(), "slow", "f",
                    held.etag(), 0, null).headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.HIT));
        }
    }

    @Test
    void aReaderOnThisNodeFollowsTheFillsTemporaryFileWhileTheStoreIsStillSending() throws Exception {
        try (HeldFile held = heldFile("followed", 17)) {
            held.proxy().holdNextAnswerAfter(MIB);
            HttpResponse<Void> head = Fixtures.HTTP.send(asCluster(held.block()).timeout(Duration.ofSeconds(10))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).header(BlockApi.FOLLOW_HEADER, "true")
                    .build(), HttpResponse.BodyHandlers.discarding());
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
            assertThat(head.headers().firstValue(BlockApi.BLOCK_LENGTH_HEADER)).hasValue(String.valueOf(4 * MIB));
            String name = head.headers().firstValue(BlockApi.FILLING_HEADER).orElseThrow();
            Path temp = work.resolve("levels/mem/followed").resolve(name);
            assertThat(held.proxy().awaitHolding(10)).as("the store has not sent the rest yet").isTrue();
            byte[] first = Files.readAllBytes(temp);
            assertThat(first.length).isPositive().isLessThan(4 * MIB);
            assertThat(first).isEqualTo(Arrays.copyOf(held.content(), first.length));
            held.proxy().release();

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Fixtures.HTTP.send(
                    asCluster(held.block()).method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .header(BlockApi.FOLLOW_HEADER, "true").build(),
                    HttpResponse.BodyHandlers.discarding()).headers().map())
                    .containsEntry(BlockApi.CACHE_HEADER.toLowerCase(), List.of(BlockApi.HIT))
                    .doesNotContainKey(BlockApi.FILLING_HEADER.toLowerCase()));
            assertThat(getBlock(worker(), "followed", "f", held.etag(), 0, null).body()).isEqualTo(held.content());
        }
    }

    @Test
    void readersJoiningAFillMidStreamGetEveryByteOfTheirRangesFromOneStoreRead() throws Exception {
        try (HeldFile held = heldFile("joined", 14)) {
            byte[] content = held.content();
            long before = stats.underStoreReadCount();
            held.proxy().holdNextAnswerAfter(MIB + 5);
            HttpRequest whole = asCluster(held.block()).build();
            var first = Fixtures.HTTP.sendAsync(whole, HttpResponse.BodyHandlers.ofByteArray());
            assertThat(held.proxy().awaitHolding(10)).isTrue();
            // Joined while the fill is held half-way: one range already written, one not, one across the two.
            var written = Fixtures.HTTP.sendAsync(asCluster(held.block()).header("Range", "bytes=1000-4999").build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            var later = Fixtures.HTTP.sendAsync(asCluster(held.block()).header("Range", "bytes=3000000-").build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            var across = Fixtures.HTTP.sendAsync(whole, HttpResponse.BodyHandlers.ofByteArray());
            assertThat(written.get(10, TimeUnit.SECONDS).body()).as("bytes written before the store stalled")
                    .isEqualTo(Arrays.copyOfRange(content, 1000, 5000));
            held.proxy().release();
            assertThat(first.get(30, TimeUnit.SECONDS).body()).isEqualTo(content);
            assertThat(across.get(30, TimeUnit.SECONDS).body()).isEqualTo(content);
            HttpResponse<byte[]> tail = later.get(30, TimeUnit.SECONDS);
            assertThat(tail.statusCode()).isEqualTo(206);
            assertThat(tail.body()).isEqualTo(Arrays.copyOfRange(content, 3_000_000, content.length));
            assertThat(stats.underStoreReadCount() - before).as("single flight: one store read").isEqualTo(1);
        }
    }

    @Test
    void anObjectReplacedMidFillIsNeverCachedAsAMixOfVersions() throws Exception {
        try (HeldFile held = heldFile("midfill", 15)) {
            held.proxy().holdNextAnswerAfter(MIB);
            var read = Fixtures.HTTP.sendAsync(asCluster(held.block()).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(held.proxy().awaitHolding(10)).isTrue();
            byte[] replacement = Fixtures.seed(buckets, s3, "midfill", "f", 4 * MIB, 16);  // past the proxy
            held.proxy().release();
            try {
                HttpResponse<byte[]> answer = read.get(30, TimeUnit.SECONDS);
                assertThat(answer.body()).as("the version named, whole, or nothing").isEqualTo(held.content());
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(IOException.class);  // a broken body, never a mixed one
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> filesOf("midfill").stream()
                    .noneMatch(file -> file.getFileName().toString().startsWith(".")));
            String blockId = BlockId.of("midfill", "f", held.etag(), 0).toString();
            for (Path file : filesOf("midfill")) {
                if (file.getFileName().toString().equals(blockId)) {
                    assertThat(Files.readAllBytes(file)).as("cached under the old version: its bytes only")
                            .isEqualTo(held.content());
                }
            }
            assertThat(replacement).isNotEqualTo(held.content());
        }
    }

    /** Sends a GET of the block and closes the connection after {@code bytes} of the answer (0: before any). */
    private void leave(URI block, int bytes) throws Exception {
        try (Socket socket = new Socket(block.getHost(), block.getPort())) {
            socket.getOutputStream().write(("GET " + block.getRawPath() + "?" + block.getRawQuery() + " HTTP/1.1\r\n"
                    + "Host: " + block.getHost() + "\r\nAuthorization: " + Identities.CLUSTER_AUTHORIZATION + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            if (bytes > 0) {
                assertThat(socket.getInputStream().readNBytes(bytes)).hasSize(bytes);
            }
        }
    }

    /** Every file the levels hold for a dataset, temporary ones included. */
    private List<Path> filesOf(String dataset) throws Exception {
        List<Path> files = new ArrayList<>();
        for (String level : List.of("levels/mem", "levels/ssd")) {
            Path dir = work.resolve(level).resolve(dataset);
            if (Files.isDirectory(dir)) {
                try (var listed = Files.list(dir)) {
                    listed.forEach(files::add);
                }
            }
        }
        return files;
    }

    @Test
    void aBlockCorruptedOnDiskIsDetectedReportedAndFetchedAgain() throws Exception {
        reads();
        String etag = etags.get("large/aligned");
        assertThat(getBlock(worker(), "reads", "large/aligned", etag, 2, null).statusCode()).isEqualTo(200);
        String blockId = BlockId.of("reads", "large/aligned", etag, 2).toString();
        Path file = blockFile("reads", blockId);
        flipAByte(file, 4096);
        long before = stats.underStoreReadCount();

        // verify-sample is 1.0 in tests: every hit is checksummed before it is sent.
        HttpResponse<byte[]> read = getBlock(worker(), "reads", "large/aligned", etag, 2, null);

        assertThat(read.body()).isEqualTo(Arrays.copyOfRange(CONTENT.get("large/aligned"), 2 * MIB, 3 * MIB));
        assertThat(read.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
        assertThat(stats.underStoreReadCount() - before).isEqualTo(1);
        assertThat(Files.readAllBytes(blockFile("reads", blockId)))
                .isEqualTo(Arrays.copyOfRange(CONTENT.get("large/aligned"), 2 * MIB, 3 * MIB));
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> blockEvents(kafka).stream().anyMatch(event ->
                    event.type() == BlockEvent.Type.CORRUPT && event.blockId().equals(blockId)));
        }
    }

    @Test
    void heartbeatsAndBlockEventsArriveOnKafka() throws Exception {
        reads();
        getBlock(worker(), "reads", "small/f-3", etags.get("small/f-3"), 0, null);
        getBlock(worker(), "reads", "small/f-3", etags.get("small/f-3"), 0, null);  // a hit
        int bytes = 0;
        for (int i = 0; i < 3; i++) {
            bytes += Fixtures.seed(buckets, s3, "summed", "f-" + i, 10_000 + i, 20 + i).length;
        }
        Map<String, String> summed = Fixtures.dataset(metadata, s3, "summed", "summed", "1MiB");
        for (int i = 0; i < 3; i++) {
            getBlock(worker(), "summed", "f-" + i, summed.get("f-" + i), 0, null);
        }
        int cachedBytes = bytes;
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            // Summed per dataset and level, not an event per block: three fills, their blocks and bytes in all.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<BlockEvent> cached = blockEvents(kafka).stream().filter(event -> event.dataset().equals("summed")
                        && event.type() == BlockEvent.Type.CACHED).toList();
                assertThat(cached).allSatisfy(event -> {
                    assertThat(event.blockId()).isNull();
                    assertThat(event.medium()).isEqualTo(Medium.MEM);
                });
                assertThat(cached.stream().mapToInt(BlockEvent::blocks).sum()).isEqualTo(3);
                assertThat(cached.stream().mapToLong(BlockEvent::bytes).sum()).isEqualTo(cachedBytes);
            });
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<ConsumerRecord<String, String>> beats = KafkaRecords.all(kafka, Topics.WORKER_HEARTBEATS);
                HeartbeatEvent last = json.readValue(beats.get(beats.size() - 1).value(), HeartbeatEvent.class);
                assertThat(last.levels()).extracting(level -> level.medium()).containsExactly(Medium.MEM, Medium.SSD);
                assertThat(last.levels().get(0).usedBytes()).isPositive();
                assertThat(last.hits()).isPositive();
                assertThat(last.datasets().get("reads").hits()).isPositive();
            });
        }
    }

    @Test
    void aBlockWrittenThroughIsAHitWithoutTheUnderStore() {
        reads();
        byte[] checkpoint = new byte[MIB - 5];
        new java.util.Random(3).nextBytes(checkpoint);
        given().contentType(ContentType.BINARY).body(checkpoint)
                .put("/blocks/reads/0?path=ckpt/step-100.pt&etag=e100").then().statusCode(201)
                .body("bytes", equalTo(MIB - 5)).body("level", equalTo("MEM"));
        long before = stats.underStoreReadCount();

        HttpResponse<byte[]> read = getBlock(worker(), "reads", "ckpt/step-100.pt", "e100", 0, null);

        assertThat(read.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.HIT);
        assertThat(read.body()).isEqualTo(checkpoint);
        assertThat(stats.underStoreReadCount()).isEqualTo(before);
        given().contentType(ContentType.BINARY).body(new byte[MIB + 1])
                .put("/blocks/reads/0?path=ckpt/too-big&etag=e1").then().statusCode(413).body("field", equalTo("body"));
    }

    /**
     * A whole block of the default size written through: longer than the HTTP server's default body limit (10 MiB),
     * which refused every whole block a gateway pushed with an empty 413.
     */
    @Test
    void aWholeBlockOfTheDefaultSizeIsWrittenThrough() throws Exception {
        reads();
        Fixtures.dataset(metadata, s3, "default-blocks", "reads", DatasetSpec.DEFAULT_BLOCK_SIZE);
        int size = (int) ByteSize.parse("blockSize", DatasetSpec.DEFAULT_BLOCK_SIZE);
        byte[] block = new byte[size];
        new java.util.Random(4).nextBytes(block);
        // Not RestAssured: a failed check would log the 16 MiB body as text and exhaust the heap.
        URI uri = Fixtures.blockUri(worker(), "default-blocks", "ckpt/whole.pt", "e16", 0);
        HttpResponse<String> put = Fixtures.HTTP.send(HttpRequest.newBuilder(uri)
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(block)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(201);

        HttpResponse<byte[]> read = getBlock(worker(), "default-blocks", "ckpt/whole.pt", "e16", 0, null);

        assertThat(read.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.HIT);
        assertThat(read.body()).isEqualTo(block);
    }

    @Test
    void aWriteThroughWhoseSenderGoesMidBodyLeavesNothingBehind() throws Exception {
        reads();
        String temp = "." + BlockId.of("reads", "ckpt/torn.pt", "e7", 0) + ".";
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.getOutputStream().write(("PUT /blocks/reads/0?path=ckpt/torn.pt&etag=e7 HTTP/1.1\r\nHost: "
                    + base.getHost() + "\r\nAuthorization: " + Identities.CLUSTER_AUTHORIZATION
                    + "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + MIB + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(new byte[100_000]);
            socket.getOutputStream().flush();
            // Its room reserved and its first bytes in the temporary file: then the gateway sending it dies.
            await().atMost(Duration.ofSeconds(30)).until(() -> filesOf("reads").stream()
                    .anyMatch(file -> file.getFileName().toString().startsWith(temp)));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> filesOf("reads").stream()
                .noneMatch(file -> file.getFileName().toString().startsWith(temp)));
        given().header(BlockApi.HELD_ONLY_HEADER, "true").get("/blocks/reads/0?path=ckpt/torn.pt&etag=e7")
                .then().statusCode(404);  // nothing torn was installed
    }

    @Test
    void aBatchLoadFillsWhatIsMissingAndCountsWhatWasCached() {
        List<Map<String, Object>> blocks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Fixtures.seed(buckets, s3, "preload", "train/img-" + i, 10_000 + i, 50 + i);
        }
        Map<String, String> preload = Fixtures.dataset(metadata, s3, "preload", "preload", "1MiB");
        preload.forEach((path, etag) -> blocks.add(Map.of("path", path, "etag", etag, "index", 0)));
        Map<String, Object> request = Map.of("dataset", "preload", "blocks", blocks);
        long before = stats.underStoreReadCount();

        given().contentType(ContentType.JSON).body(request).post("/blocks/fill").then().statusCode(200)
                .body("filled", equalTo(20)).body("cached", equalTo(0)).body("failed", equalTo(0));
        given().contentType(ContentType.JSON).body(request).post("/blocks/fill").then().statusCode(200)
                .body("filled", equalTo(0)).body("cached", equalTo(20));
        preload.forEach((path, etag) -> assertThat(getBlock(worker(), "preload", path, etag, 0, null).headers()
                .firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.HIT));
        assertThat(stats.underStoreReadCount() - before).isEqualTo(20);

        given().delete("/blocks/preload?prefix=train/img-1").then().statusCode(200)
                .body("blocks", equalTo(11));  // img-1 and img-10 .. img-19
        assertThat(getBlock(worker(), "preload", "train/img-12", preload.get("train/img-12"), 0, null).headers()
                .firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
    }

    @Test
    void aHeadFillsAMissingBlockAndAnswersWithoutABody() {
        Fixtures.seed(buckets, s3, "heads", "f", MIB + MIB / 2, 7);
        String etag = Fixtures.dataset(metadata, s3, "heads", "heads", "1MiB").get("f");
        long before = stats.underStoreReadCount();

        given().head("/blocks/heads/1?path=f&etag=" + etag).then().statusCode(200)
                .header(BlockApi.CACHE_HEADER, BlockApi.MISS)
                .header(BlockApi.BLOCK_LENGTH_HEADER, Integer.toString(MIB / 2));
        given().head("/blocks/heads/1?path=f&etag=" + etag).then().statusCode(200)
                .header(BlockApi.CACHE_HEADER, BlockApi.HIT);

        assertThat(stats.underStoreReadCount() - before).as("one fill").isEqualTo(1);
        HttpResponse<byte[]> read = getBlock(worker(), "heads", "f", etag, 1, null);
        assertThat(read.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.HIT);
        assertThat(read.body()).hasSize(MIB / 2);
        given().head("/blocks/heads/0?path=f&etag=not-this-version").then().statusCode(412);
        given().head("/blocks/heads/2?path=f&etag=" + etag).then().statusCode(404);
    }

    @Test
    void aDeletedDatasetLosesItsBlocks() {
        Fixtures.seed(buckets, s3, "gone", "a", 5000, 1);
        String etag = Fixtures.dataset(metadata, s3, "gone", "gone", "1MiB").get("a");
        getBlock(worker(), "gone", "a", etag, 0, null);
        given().get("/blocks/stats").then().body("cachedBytes.gone", equalTo(5000));

        given().baseUri(metadata).delete("/api/v1/datasets/gone").then().statusCode(204);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                given().get("/blocks/stats").jsonPath().get("cachedBytes.gone") == null);
    }

    @Test
    void freeingAPathThroughTheMetadataServiceDropsOnlyTheBlocksUnderIt() {
        List<String> paths = List.of("train/a/0.bin", "train/a/1.bin", "train/ab.bin", "val/c.bin");
        for (int i = 0; i < paths.size(); i++) {
            Fixtures.seed(buckets, s3, "freeing", paths.get(i), 1000 * (i + 1), 30 + i);
        }
        Map<String, String> freeing = Fixtures.dataset(metadata, s3, "freeing", "freeing", "1MiB");
        freeing.forEach((path, etag) -> getBlock(worker(), "freeing", path, etag, 0, null));
        given().get("/blocks/stats").then().body("cachedBytes.freeing", equalTo(10_000));

        given().baseUri(metadata).queryParam("path", "train/a").delete("/api/v1/datasets/freeing/cache").then()
                .statusCode(202);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/blocks/stats").then()
                .body("cachedBytes.freeing", equalTo(10_000 - 1000 - 2000)));
        assertThat(getBlock(worker(), "freeing", "train/a/1.bin", freeing.get("train/a/1.bin"), 0, null).headers()
                .firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.MISS);
        assertThat(getBlock(worker(), "freeing", "train/ab.bin", freeing.get("train/ab.bin"), 0, null).headers()
                .firstValue(BlockApi.CACHE_HEADER)).as("shares the prefix, not the directory").hasValue(BlockApi.HIT);
    }

    @Test
    void shortCircuitReadsReportedByTheGatewayCountAsHitsAndMisses() {
        reads();
        String etag = etags.get("small/f-5");
        getBlock(worker(), "reads", "small/f-5", etag, 0, null);
        String blockId = BlockId.of("reads", "small/f-5", etag, 0).toString();
        long hits = given().get("/blocks/stats").jsonPath().getLong("hits");
        long misses = given().get("/blocks/stats").jsonPath().getLong("misses");

        long served = given().get("/blocks/stats").jsonPath().getLong("bytesServed");
        long datasetBytes = given().get("/blocks/stats").jsonPath().getLong("datasets.reads.bytes");

        given().contentType(ContentType.JSON).body(Map.of("hits", Map.of(blockId, 3), "misses", 2, "bytes", 5000))
                .post("/blocks/reads/reads").then().statusCode(204);

        given().get("/blocks/stats").then().body("hits", equalTo((int) hits + 3))
                .body("misses", equalTo((int) misses + 2))
                .body("bytesServed", equalTo((int) served + 5000))
                .body("datasets.reads.bytes", equalTo((int) datasetBytes + 5000));
        given().contentType(ContentType.JSON).body(Map.of("hits", Map.of(blockId, 1), "bytes", -1))
                .post("/blocks/reads/reads").then().statusCode(400).body("field", equalTo("bytes"));
        given().contentType(ContentType.JSON).body(Map.of("hits", Map.of(blockId, 1), "misses", -1))
                .post("/blocks/reads/reads").then().statusCode(400).body("field", equalTo("misses"));
        given().contentType(ContentType.JSON).body(Map.of("hits", Map.of("not-a-block", 1)))
                .post("/blocks/reads/reads").then().statusCode(400).body("field", equalTo("hits"));
        given().contentType(ContentType.JSON).body(Map.of("hits", Map.of(blockId, 0)))
                .post("/blocks/reads/reads").then().statusCode(400).body("field", equalTo("hits." + blockId));
        given().get("/blocks/stats").then().body("hits", equalTo((int) hits + 3));
    }

    @Test
    void aWorkerSaysWhichBlocksItHoldsAndHowLong() {
        reads();
        String etag = etags.get("large/odd");
        getBlock(worker(), "reads", "large/odd", etag, 3, null);  // the last block: 512 KiB + 123 B
        String last = BlockId.of("reads", "large/odd", etag, 3).toString();
        given().delete("/blocks/reads?prefix=small/f-7").then().statusCode(200);
        String evicted = BlockId.of("reads", "small/f-7", etags.get("small/f-7"), 0).toString();

        given().contentType(ContentType.JSON).body(List.of(last, evicted)).post("/blocks/reads/held").then()
                .statusCode(200).body("size()", equalTo(1)).body("'" + last + "'", equalTo(MIB / 2 + 123));
        given().contentType(ContentType.JSON).body(List.of(last, "not-a-block")).post("/blocks/reads/held").then()
                .statusCode(400).body("field", equalTo("[1]"));
        given().contentType(ContentType.JSON).body(Collections.nCopies(BlockApi.MAX_HELD_QUERY + 1, last))
                .post("/blocks/reads/held").then().statusCode(400).body("field", equalTo("body"));
    }

    @Test
    void aBlockNoLevelCanHoldIsStreamedFromTheUnderStore() {
        byte[] content = Fixtures.seed(buckets, s3, "huge", "one", 300_000, 9);
        // 1 GiB blocks: more room than the test's SSD level has, so nothing of this dataset can be stored.
        String etag = Fixtures.dataset(metadata, s3, "huge", "huge", "1GiB").get("one");
        long before = stats.underStoreReadCount();
        for (int i = 0; i < 2; i++) {
            HttpResponse<byte[]> read = getBlock(worker(), "huge", "one", etag, 0, null);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat(read.headers().firstValue(BlockApi.CACHE_HEADER)).hasValue(BlockApi.BYPASS);
            assertThat(read.body()).isEqualTo(content);
        }
        HttpResponse<byte[]> range = getBlock(worker(), "huge", "one", etag, 0, "bytes=-10");
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(Arrays.copyOfRange(content, content.length - 10, content.length));
        assertThat(stats.underStoreReadCount() - before).isGreaterThanOrEqualTo(3);
    }

    @Test
    void badRequestsAreNamedAndStaleVersionsRefused() {
        reads();
        String etag = etags.get("small/f-1");
        given().get("/blocks/reads/x?path=small/f-1&etag=" + etag).then().statusCode(400)
                .contentType("application/problem+json").body("field", equalTo("index"));
        given().get("/blocks/reads/0?path=small/f-1").then().statusCode(400).body("field", equalTo("etag"));
        given().get("/blocks/reads/0?path=small/f-1&etag=" + etag + "&size=-1").then().statusCode(400)
                .body("field", equalTo("size"));
        given().head("/blocks/reads/0?path=small/f-1&etag=" + etag + "&size=big").then().statusCode(400);
        given().get("/blocks/reads/0?path=../etc/passwd&etag=x").then().statusCode(400).body("field", equalTo("path"));
        given().get("/blocks/NOPE/0?path=a&etag=x").then().statusCode(400).body("field", equalTo("dataset"));
        given().get("/blocks/nothing/0?path=a&etag=x").then().statusCode(404).body("field", equalTo("dataset"));
        given().get("/blocks/reads/0?path=small/missing&etag=x").then().statusCode(404);
        given().get("/blocks/reads/0?path=small/f-1&etag=not-this-version").then().statusCode(412)
                .body("field", equalTo("etag"));
        given().get("/blocks/reads/9?path=small/f-1&etag=" + etag).then().statusCode(404)
                .body("field", equalTo("index"));
        given().contentType(ContentType.JSON).body("{\"dataset\":\"reads\",\"blocks\":[{\"path\":\"/a//b\",\"etag\":\"e\","
                + "\"index\":0}]}").post("/blocks/fill").then().statusCode(400).body("field", equalTo("blocks[0].path"));
    }

    /** Reads every block of every file; {@code expectedCache} null accepts however each was served. */
    private Map<String, byte[]> readEverything(String expectedCache) {
        Map<String, byte[]> read = new HashMap<>();
        for (String path : CONTENT.keySet()) {
            int blocks = (CONTENT.get(path).length + MIB - 1) / MIB;
            List<byte[]> parts = new ArrayList<>();
            for (int index = 0; index < blocks; index++) {
                HttpResponse<byte[]> response = getBlock(worker(), "reads", path, etags.get(path), index, null);
                assertThat(response.statusCode()).as("%s block %d", path, index).isEqualTo(200);
                if (expectedCache != null) {
                    assertThat(response.headers().firstValue(BlockApi.CACHE_HEADER)).as("%s block %d", path, index)
                            .hasValue(expectedCache);
                }
                parts.add(response.body());
            }
            read.put(path, concat(parts.toArray(byte[][]::new)));
        }
        return read;
    }

    private List<BlockEvent> blockEvents(KafkaCompanion kafka) {
        return KafkaRecords.all(kafka, Topics.BLOCK_EVENTS).stream().map(record -> {
            try {
                return json.readValue(record.value(), BlockEvent.class);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    private Path blockFile(String dataset, String blockId) {
        for (String level : List.of("levels/mem", "levels/ssd")) {
            Path file = work.resolve(level).resolve(dataset).resolve(blockId);
            if (Files.exists(file)) {
                return file;
            }
        }
        throw new AssertionError("no block file " + dataset + "/" + blockId);
    }

    private static void flipAByte(Path file, long position) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) ~one.get(0));
            one.rewind();
            channel.write(one, position);
        }
    }

    private static byte[] concat(byte[]... parts) {
        int length = Arrays.stream(parts).mapToInt(part -> part.length).sum();
        ByteBuffer joined = ByteBuffer.allocate(length);
        for (byte[] part : parts) {
            joined.put(part);
        }
        return joined.array();
    }

    private URI worker() {
        return URI.create(base.toString());
    }
}
