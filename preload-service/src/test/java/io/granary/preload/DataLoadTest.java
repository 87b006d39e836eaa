package io.granary.preload;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.DataLoadApi;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.HdfsServer;
import io.granary.devstack.Ports;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.KafkaRecords;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.S3Resource;
import io.granary.devstack.testing.StackResource;
import io.granary.preload.service.DataLoads;
import io.granary.ufs.Credentials;
import io.granary.ufs.S3Location;
import io.granary.ufs.S3UnderStore;
import io.granary.ufs.UnderStore;
import io.granary.ufs.UnderStores;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * DataLoads against a real Kafka broker, S3Proxy, a real metadata-service and two real block-service workers (child
 * processes). What is cached is checked on the workers themselves, against rendezvous placement.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES,
        initArgs = @ResourceArg(name = "services", value = "metadata-service,block-service,block-service"))
class DataLoadTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    private static final int MIB = 1 << 20;

    @ConfigProperty(name = "granary.metadata-url")
    String metadataUrl;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @TestHTTPResource("/")
    URL base;

    @Inject
    ObjectMapper json;

    @Test
    void aRequestOnKafkaWarmsEveryBlockOnItsOwnerWithMonotonicProgress() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("warm/train"), 2000, 3000, 1);
        Files.createDirectories(buckets.resolve("warm-big"));
        try (S3UnderStore bucket = new S3UnderStore(new S3Location(URI.create(s3), "us-east-1", "warm-big", "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
            byte[] big = new byte[10 * MIB + 5];
            new Random(2).nextBytes(big);
            bucket.write("model.bin", new ByteArrayInputStream(big), big.length);
        }
        // The small files on a local mount, the multi-block file in S3 under the mount named "ckpt".
        cluster.dataset("warm", "1MiB", Datasets.localMount(localRoot.resolve("warm")),
                "{\"uri\":\"s3://warm-big/\",\"name\":\"ckpt\",\"credentialsRef\":\"devstack-s3\","
                        + "\"options\":{\"endpoint\":\"" + s3 + "\",\"pathStyle\":\"true\"}}");
        List<Worker> workers = cluster.liveWorkers(2);
        List<FileInfo> files = cluster.files("warm");
        assertThat(files).hasSize(2001);

        String request = """
                {"requestId":"pipeline-42","dataset":"warm","targets":[{"path":"/train"},{"path":"ckpt/model.bin"}]}""";
        String id = DataLoads.idOf("pipeline-42");
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            kafka.produceStrings().fromRecords(new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "warm", request))
                    .awaitCompletion();
            await().atMost(Duration.ofSeconds(120)).until(() -> phase(id) == DataLoadPhase.COMPLETE);

            List<DataLoadStatus> progress = statuses(kafka, id);
            assertThat(progress.get(0).phase()).isEqualTo(DataLoadPhase.PENDING);
            DataLoadStatus last = progress.get(progress.size() - 1);
            assertThat(last.phase()).isEqualTo(DataLoadPhase.COMPLETE);
            assertThat(last.filesDone()).isEqualTo(2001).isEqualTo(last.filesTotal());
            long total = files.stream().mapToLong(FileInfo::size).sum();
            assertThat(last.bytesDone()).isEqualTo(total).isEqualTo(last.bytesTotal());
            for (int i = 1; i < progress.size(); i++) {
                assertThat(progress.get(i).filesDone()).isGreaterThanOrEqualTo(progress.get(i - 1).filesDone());
                assertThat(progress.get(i).bytesDone()).isGreaterThanOrEqualTo(progress.get(i - 1).bytesDone());
            }
        }
        Map<String, Long> expected = Cluster.expectedBytes("warm", files, MIB, workers, 1);
        assertThat(expected.values()).allSatisfy(bytes -> assertThat(bytes).isPositive());
        for (Worker worker : workers) {
            assertThat(Cluster.heldBy(worker.address(), "warm")).as(worker.id())
                    .isEqualTo(expected.get(worker.address()));
        }
    }

    @Test
    void twoReplicasPutEveryBlockOnBothWorkers() {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("twice"), 200, 5000, 3);
        cluster.dataset("twice", "1MiB", Datasets.localMount(localRoot.resolve("twice")));
        List<Worker> workers = cluster.liveWorkers(2);
        long total = cluster.files("twice").stream().mapToLong(FileInfo::size).sum();

        String id = start("{\"dataset\":\"twice\",\"targets\":[{\"path\":\"/\",\"replicas\":2}]}");
        await().atMost(Duration.ofSeconds(120)).until(() -> phase(id) == DataLoadPhase.COMPLETE);

        given().get("/api/v1/dataloads/" + id).then().body("filesDone", equalTo(200))
                .body("bytesDone", equalTo((int) (2 * total)));
        for (Worker worker : workers) {
            assertThat(Cluster.heldBy(worker.address(), "twice")).as(worker.id()).isEqualTo(total);
        }
    }

    @Test
    void theSameRequestIdTwiceRunsOneLoad() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("once"), 30, 1000, 4);
        cluster.dataset("once", "1MiB", Datasets.localMount(localRoot.resolve("once")));
        String request = "{\"requestId\":\"nightly-7\",\"dataset\":\"once\",\"targets\":[{\"path\":\"\"}]}";
        String id = DataLoads.idOf("nightly-7");
        double consumedBefore = consumedRequests();
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            kafka.produceStrings().fromRecords(new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "once", request),
                    new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "once", request)).awaitCompletion();
            // both copies handled: the consumer counts a message once it is done with it
            await().atMost(Duration.ofSeconds(60)).until(() -> consumedRequests() >= consumedBefore + 2);
            await().atMost(Duration.ofSeconds(60)).until(() -> phase(id) == DataLoadPhase.COMPLETE);
            // A second load under the same id would announce itself (Pending) and run again (Loading, Complete).
            await().atMost(Duration.ofSeconds(10)).until(() -> statuses(kafka, id).stream()
                    .anyMatch(s -> s.phase() == DataLoadPhase.COMPLETE));
            List<DataLoadStatus> published = statuses(kafka, id);
            assertThat(published).filteredOn(s -> s.phase() == DataLoadPhase.PENDING).hasSize(1);
            assertThat(published).filteredOn(s -> s.phase() == DataLoadPhase.COMPLETE).hasSize(1);
            assertThat(published.stream().filter(s -> s.phase() == DataLoadPhase.LOADING)
                    .map(DataLoadStatus::startedAt).distinct()).hasSize(1);
        }
        assertThat(given().get("/api/v1/dataloads").jsonPath().getList("id")).containsOnlyOnce(id);
    }

    @Test
    void aPostAskedAgainWithItsIdempotencyKeyStartsOneLoad() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("keyed"), 5, 1000, 4);
        cluster.dataset("keyed", "1MiB", Datasets.localMount(localRoot.resolve("keyed")));
        String body = "{\"dataset\":\"keyed\",\"targets\":[{\"path\":\"\"}]}";
        // The first answer lost with its connection: the client sends the same POST, with the same key, again.
        String first = given().contentType(ContentType.JSON).header(DataLoadApi.IDEMPOTENCY_HEADER, "ckpt-41")
                .body(body).post("/api/v1/dataloads").then().statusCode(202).extract().path("id");
        String again = given().contentType(ContentType.JSON).header(DataLoadApi.IDEMPOTENCY_HEADER, "ckpt-41")
                .body(body).post("/api/v1/dataloads").then().statusCode(202).extract().path("id");
        assertThat(again).isEqualTo(first);
        assertThat(given().get("/api/v1/dataloads").jsonPath().getList("id")).containsOnlyOnce(first);

        // The key names that load: a DataLoad of another dataset under it is refused, and a bad key is named.
        Cluster.files(localRoot.resolve("other-keyed"), 1, 1000, 4);
        cluster.dataset("other-keyed", "1MiB", Datasets.localMount(localRoot.resolve("other-keyed")));
        given().contentType(ContentType.JSON).header(DataLoadApi.IDEMPOTENCY_HEADER, "ckpt-41")
                .body("{\"dataset\":\"other-keyed\",\"targets\":[{\"path\":\"\"}]}").post("/api/v1/dataloads")
                .then().statusCode(409).body("field", equalTo(DataLoadApi.IDEMPOTENCY_HEADER));
        given().contentType(ContentType.JSON).header(DataLoadApi.IDEMPOTENCY_HEADER, "no spaces").body(body)
                .post("/api/v1/dataloads").then().statusCode(400).body("field", equalTo(DataLoadApi.IDEMPOTENCY_HEADER));
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(first) == DataLoadPhase.COMPLETE);
    }

    /** Preload requests this replica's consumer has handled, from its counter (absent before the first). */
    private static double consumedRequests() {
        String series = "granary_events_consumed_total{topic=\"" + Topics.PRELOAD_REQUESTS + "\"} ";
        return given().get("/q/metrics").asString().lines().filter(line -> line.startsWith(series))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length()))).sum();
    }

    @Test
    void metadataOnlyRefreshesTheMetadataCacheAndLoadsNoBlock() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("meta"), 10, 1000, 5);
        cluster.dataset("meta", "1MiB", Datasets.localMount(localRoot.resolve("meta")));
        Files.writeString(localRoot.resolve("meta/added-later.txt"), "new");
        List<Worker> workers = cluster.liveWorkers(2);

        String id = start("{\"dataset\":\"meta\",\"targets\":[{\"path\":\"/\"}],\"metadataOnly\":true}");
        await().atMost(Duration.ofSeconds(60)).until(() -> phase(id) == DataLoadPhase.COMPLETE);

        assertThat(cluster.files("meta")).extracting(FileInfo::path).contains("added-later.txt").hasSize(11);
        for (Worker worker : workers) {
            assertThat(Cluster.heldBy(worker.address(), "meta")).isZero();
        }
    }

    @Test
    void aCronLoadRunsOnItsScheduleUntilCancelled() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("cron"), 5, 100, 6);
        cluster.dataset("cron", "1MiB", Datasets.localMount(localRoot.resolve("cron")));

        String id = start("{\"dataset\":\"cron\",\"targets\":[{\"path\":\"\"}],\"policy\":\"Cron\","
                + "\"schedule\":\"*/2 * * * * *\"}");
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> statuses(kafka, id).stream()
                    .filter(s -> s.phase() == DataLoadPhase.COMPLETE).map(DataLoadStatus::startedAt)
                    .distinct().count() >= 2);
        }
        given().delete("/api/v1/dataloads/" + id).then().statusCode(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> phase(id) == DataLoadPhase.CANCELLED);
    }

    @Test
    void cancelStopsALoadBeforeItStarts() {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("cancel"), 100, 1000, 8);
        cluster.dataset("cancel", "1MiB", Datasets.localMount(localRoot.resolve("cancel")));
        String cron = start("{\"dataset\":\"cancel\",\"targets\":[{\"path\":\"\"}],\"policy\":\"Cron\","
                + "\"schedule\":\"0 0 1 1 *\"}");  // next New Year: it waits

        given().delete("/api/v1/dataloads/" + cron).then().statusCode(202).body("phase", equalTo("Cancelled"));
        given().get("/api/v1/dataloads/" + cron).then().body("phase", equalTo("Cancelled"))
                .body("bytesDone", equalTo(0));
        // (A load cancelled while it runs: ResumeIT, where a bandwidth limit makes it run long enough.)
    }

    @Test
    void malformedRequestsAreDeadLetteredWithAReasonAndTheNextGoodOneRuns() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("after"), 3, 100, 9);
        cluster.dataset("after", "1MiB", Datasets.localMount(localRoot.resolve("after")));
        List<String> bad = List.of(
                "{not json",
                "{\"requestId\":\"bad-dataset\",\"dataset\":\"no-such-dataset\",\"targets\":[{\"path\":\"\"}]}",
                "{\"requestId\":\"bad-targets\",\"dataset\":\"after\",\"targets\":[]}",
                "{\"requestId\":\"bad-cron\",\"dataset\":\"after\",\"targets\":[{\"path\":\"\"}],\"policy\":\"Cron\","
                        + "\"schedule\":\"99 * * * *\"}");
        String good = "{\"requestId\":\"good-after-bad\",\"dataset\":\"after\",\"targets\":[{\"path\":\"\"}]}";
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            bad.forEach(value -> records.add(new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "after", value)));
            records.add(new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "after", good));
            kafka.produceStrings().fromRecords(records).awaitCompletion();

            await().atMost(Duration.ofSeconds(60)).until(() -> phase(DataLoads.idOf("good-after-bad"))
                    == DataLoadPhase.COMPLETE);
            List<ConsumerRecord<String, String>> dead = Cluster.deadLetters(kafka, Topics.PRELOAD_REQUESTS, bad);
            assertThat(dead).allSatisfy(record -> assertThat(new String(record.headers()
                    .lastHeader(DeadLetter.REASON_HEADER).value(), StandardCharsets.UTF_8)).isNotBlank());
            DataLoadStatus refused = statuses(kafka, DataLoads.idOf("bad-dataset")).get(0);
            assertThat(refused.phase()).isEqualTo(DataLoadPhase.FAILED);
            assertThat(refused.errors().get(0).reason()).contains("no-such-dataset");
            assertThat(statuses(kafka, DataLoads.idOf("bad-cron")).get(0).errors().get(0).reason())
                    .contains("schedule");
        }
    }

    @Test
    void restNamesTheBadFieldAndStreamsProgressAsServerSentEvents() throws Exception {
        given().contentType(ContentType.JSON).body("{\"dataset\":\"Bad_Name\",\"targets\":[{\"path\":\"\"}]}")
                .post("/api/v1/dataloads").then().statusCode(400).contentType("application/problem+json")
                .body("field", equalTo("dataset"));
        given().contentType(ContentType.JSON).body("{\"dataset\":\"nowhere\",\"targets\":[{\"path\":\"\"}]}")
                .post("/api/v1/dataloads").then().statusCode(400).body("field", equalTo("dataset"));
        given().contentType(ContentType.JSON).body("{\"dataset\":\"after\",\"targets\":[{\"path\":\"\"}],"
                + "\"policy\":\"Cron\",\"schedule\":\"61 * * * *\"}").post("/api/v1/dataloads").then().statusCode(400)
                .body("field", equalTo("schedule"));
        given().contentType(ContentType.JSON).body("{\"dataset\":\"after\",\"targets\":[{\"path\":\"../x\"}]}")
                .post("/api/v1/dataloads").then().statusCode(400).body("field", equalTo("targets[0].path"));
        given().get("/api/v1/dataloads/nope").then().statusCode(404);

        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("sse"), 50, 20_000, 10);
        cluster.dataset("sse", "1MiB", Datasets.localMount(localRoot.resolve("sse")));
        String id = start("{\"dataset\":\"sse\",\"targets\":[{\"path\":\"\"}]}");
        HttpResponse<Stream<String>> events = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(base + "api/v1/dataloads/" + id + "/events")).timeout(Duration.ofSeconds(60))
                        .header("Authorization", Identities.CLUSTER_AUTHORIZATION).build(),
                HttpResponse.BodyHandlers.ofLines());
        assertThat(events.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/event-stream"));
        List<DataLoadStatus> seen = events.body().filter(line -> line.startsWith("data:"))
                .map(line -> read(line.substring(5).strip())).toList();  // the stream ends with the load
        assertThat(seen).isNotEmpty();
        assertThat(seen.get(seen.size() - 1).phase()).isEqualTo(DataLoadPhase.COMPLETE);
        assertThat(seen.get(seen.size() - 1).filesDone()).isEqualTo(50);
    }

    @Test
    void aNamenodeRestartMidLoadIsRiddenOutAndTheLoadCompletes() throws Exception {
        Cluster cluster = new Cluster(metadataUrl);
        int port = Ports.free();
        Path hdfsData = Files.createTempDirectory("hdfs");
        HdfsServer hdfs = HdfsServer.start(hdfsData, port);
        try {
            String root = hdfs.namenode() + "/restart";
            Map<String, String> options = Map.of("dfs.replication", "1",
                    "dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "20");
            Random random = new Random(7);
            try (UnderStore store = new UnderStores(List.of(), ref -> null).open(new Mount(root, null, options, null))) {
                for (int i = 0; i < 12; i++) {
                    byte[] part = new byte[16 * MIB];
                    random.nextBytes(part);
                    store.write("shard-%02d.bin".formatted(i), new ByteArrayInputStream(part), part.length);
                }
            }
            long total = 12L * 16 * MIB;
            cluster.dataset("hdfs-restart", "1MiB", Datasets.hdfsMount(root));
            List<Worker> workers = cluster.liveWorkers(2);

            String id = start("{\"dataset\":\"hdfs-restart\",\"targets\":[{\"path\":\"/\"}]}");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> bytesDone(id) > 0);
            hdfs.close();  // the NameNode, and its DataNode with it, while blocks are being read
            assertThat(bytesDone(id)).as("the restart came in the middle of the load").isLessThan(total);
            hdfs = HdfsServer.start(hdfsData, port);

            await().atMost(Duration.ofSeconds(150)).until(() -> phase(id) == DataLoadPhase.COMPLETE
                    || phase(id) == DataLoadPhase.FAILED);
            given().get("/api/v1/dataloads/" + id).then().body("phase", equalTo("Complete"))
                    .body("filesDone", equalTo(12)).body("errors.size()", equalTo(0));
            assertThat(workers.stream().mapToLong(worker -> Cluster.heldBy(worker.address(), "hdfs-restart")).sum())
                    .isEqualTo(total);
        } finally {
            hdfs.close();
        }
    }

    private long bytesDone(String id) {
        return given().get("/api/v1/dataloads/" + id).jsonPath().getLong("bytesDone");
    }

    private String start(String body) {
        return given().contentType(ContentType.JSON).body(body).post("/api/v1/dataloads").then().statusCode(202)
                .extract().jsonPath().getString("id");
    }

    private DataLoadPhase phase(String id) {
        var response = given().get("/api/v1/dataloads/" + id);
        return response.statusCode() == 200 ? read(response.asString()).phase() : null;
    }

    private List<DataLoadStatus> statuses(KafkaCompanion kafka, String id) {
        return KafkaRecords.all(kafka, Topics.PRELOAD_STATUS).stream().filter(record -> id.equals(record.key()))
                .map(record -> read(record.value())).toList();
    }

    private DataLoadStatus read(String value) {
        try {
            return json.readValue(value, DataLoadStatus.class);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
