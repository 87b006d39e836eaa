package io.granary.preload;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.plan.PlanPhase;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Epoch plans against real workers (child processes) and Kafka: the prefetch runs a window ahead of the position
 * the workers saw read, and stops with its reader; bad plans are refused over REST and dead-lettered from Kafka.
 * The window is 64 KiB here (the test profile), about 21 of these files. The workers' caches are 512 KiB each.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = "metadata-service,block-service,block-service"),
        // Caches of 512 KiB a worker, so that a dataset twice their size is a few hundred small files; a block
        // read is spent at once (no grace for a reader still to open it: these reads end before the next).
        @ResourceArg(name = "block-service:granary.block.levels[0].quota", value = "256KiB"),
        @ResourceArg(name = "block-service:granary.block.levels[1].quota", value = "256KiB"),
        @ResourceArg(name = "block-service:granary.block.plan-spent-grace", value = "0s")})
class EpochPlanTest {

    private static final int FILES = 200;
    private static final int SIZE = 3000;
    /** Blocks in the window (64 KiB of files of 3,000-3,099 bytes), and a batch of 8 past it at most. */
    private static final int WINDOW_BLOCKS = 64 * 1024 / SIZE + 1 + 8;

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    @ConfigProperty(name = "granary.metadata-url")
    String metadataUrl;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Inject
    MeterRegistry meters;

    @Test
    void thePrefetchRunsAheadOfItsReaderAndStopsWhenTheJobStops() {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("epochs"), FILES, SIZE, 21);
        cluster.dataset("epochs", "1MiB", Datasets.localMount(localRoot.resolve("epochs")));
        List<Worker> workers = cluster.liveWorkers(2);
        List<FileInfo> files = new ArrayList<>(cluster.files("epochs"));
        Collections.shuffle(files, new Random(3));  // the epoch's order, as a shuffling sampler draws it

        given().contentType(ContentType.JSON).body(plan("epochs", "train", 0, files.stream().map(FileInfo::path)
                .toList())).post("/api/v1/plans").then().statusCode(202).body("id", equalTo("train.0"));
        // 202 once Kafka has it; the consumer starts it a moment later (a 404 until then: CI, on a slower machine)
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/api/v1/plans/train.0").statusCode() == 200);
        await().atMost(Duration.ofSeconds(30)).until(() -> status("train.0").getInt("fetched") > 0);
        assertThat(status("train.0").getInt("fetched")).as("nothing read yet: one window ahead of the start")
                .isLessThanOrEqualTo(WINDOW_BLOCKS);

        int read = 60;
        files.subList(0, read).forEach(file -> read("epochs", file, workers));  // the job's first files
        await().atMost(Duration.ofSeconds(30)).until(() -> status("train.0").getInt("position") == read - 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> status("train.0").getInt("fetched") > read);

        // The job stops: the prefetch goes no further than a window past its last read, and the plan expires.
        await().atMost(Duration.ofSeconds(30)).until(() -> PlanPhase.Expired.name()
                .equals(status("train.0").getString("phase")));
        JsonPath ended = status("train.0");
        assertThat(ended.getInt("fetched")).isLessThanOrEqualTo(read + WINDOW_BLOCKS);
        assertThat(ended.getString("reason")).contains("nothing read");
        for (Worker worker : workers) {
            given().baseUri(worker.address()).get(BlockApi.planPath("train.0")).then().statusCode(404);
        }
        long heldAfter = workers.stream().mapToLong(worker -> Cluster.heldBy(worker.address(), "epochs")).sum();
        assertThat(heldAfter).as("the blocks read and at most a window more")
                .isLessThanOrEqualTo((long) (read + WINDOW_BLOCKS) * (SIZE + 100));
    }

    /**
     * A plan's prefetch into a full cache takes only the room of blocks its epoch has read: before the reader
     * starts, every block held is one the epoch reads, so the workers refuse it and keep them all; once the reader
     * has spent some, the prefetch fills into their room.
     */
    @Test
    void aPrefetchIntoAFullCacheTakesOnlyTheRoomOfBlocksItsEpochRead() {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve("twice"), 2 * 1024 * 1024 / SIZE, SIZE, 22);  // twice the workers' caches
        cluster.dataset("twice", "1MiB", Datasets.localMount(localRoot.resolve("twice")));
        List<Worker> workers = cluster.liveWorkers(2);
        List<FileInfo> files = new ArrayList<>(cluster.files("twice"));
        try {
            files.forEach(file -> read("twice", file, workers));  // a first epoch, in listing order, fills the caches
            Map<String, Long> held = held("twice", files, workers);
            assertThat(held.size()).as("the caches are full: about half the dataset is held (%d and %d bytes)",
                            Cluster.heldBy(workers.get(0).address(), "twice"),
                            Cluster.heldBy(workers.get(1).address(), "twice"))
                    .isBetween(files.size() / 4, files.size() * 3 / 4);

            Collections.shuffle(files, new Random(4));
            double refused = planBlocks("failed");
            double filled = planBlocks("filled");
            given().contentType(ContentType.JSON).body(plan("twice", "big", 1, files.stream().map(FileInfo::path)
                    .toList())).post("/api/v1/plans").then().statusCode(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> planBlocks("failed") + planBlocks("filled")
                    > refused + filled);  // the workers answered the window's first blocks they did not hold
            assertThat(planBlocks("filled")).as("nothing read yet: no room is the plan's").isEqualTo(filled);
            assertThat(held("twice", files, workers)).as("every block held stays").isEqualTo(held);

            files.subList(0, 40).forEach(file -> read("twice", file, workers));
            await().atMost(Duration.ofSeconds(30)).until(() -> planBlocks("filled") > filled);
        } finally {
            given().delete("/api/v1/plans/big.1");
            workers.forEach(worker -> given().baseUri(worker.address()).delete("/blocks/twice").then()
                    .statusCode(200));
        }
    }

    /**
     * A plan past a Kafka record's default 1 MiB (2,000 files of 730-character paths: 1.5 MiB of JSON; a rank of an
     * ImageNet-sized job plans 160,000 files) goes through Kafka and runs.
     */
    @Test
    void aPlanLargerThanAKafkaRecordRuns() throws IOException {
        Path root = localRoot.resolve("long-paths");
        Path deep = Files.createDirectories(root.resolve("a".repeat(240)).resolve("b".repeat(240))
                .resolve("c".repeat(240)));
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            Path file = Files.writeString(deep.resolve(String.format("s-%05d", i)), "x");
            paths.add(root.relativize(file).toString());
        }
        Cluster cluster = new Cluster(metadataUrl);
        cluster.dataset("long-paths", "1MiB", Datasets.localMount(root));
        List<Worker> workers = cluster.liveWorkers(2);
        String body = plan("long-paths", "long", 0, paths);
        assertThat(body.length()).as("more than a Kafka record takes by default").isGreaterThan(1 << 20);
        try {
            given().contentType(ContentType.JSON).body(body).post("/api/v1/plans").then().statusCode(202);

            await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/api/v1/plans/long.0").statusCode()
                    == 200);
            assertThat(status("long.0").getInt("files")).isEqualTo(2000);
        } finally {
            given().delete("/api/v1/plans/long.0");
            workers.forEach(worker -> given().baseUri(worker.address()).delete("/blocks/long-paths").then()
                    .statusCode(200));
        }
    }

    @Test
    void aPlanWhoseReaderNeverComesExpires() {
        List<String> paths = dataset("nobody", 20, 500, 4);
        given().contentType(ContentType.JSON).body(plan("nobody", "idle", 0, paths)).post("/api/v1/plans").then()
                .statusCode(202);

        await().atMost(Duration.ofSeconds(30)).until(() -> given().get("/api/v1/plans/idle.0").statusCode() == 200
                && PlanPhase.Expired.name().equals(status("idle.0").getString("phase")));
        assertThat(status("idle.0").getString("reason")).isEqualTo("its reader never came");
    }

    @Test
    void restNamesTheBadFieldOfAPlan() {
        String file = dataset("checked", 3, 100, 5).get(0);

        given().contentType(ContentType.JSON).body(plan("nowhere", "j", 0, List.of(file))).post("/api/v1/plans")
                .then().statusCode(400).contentType("application/problem+json").body("field", equalTo("dataset"));
        given().contentType(ContentType.JSON).body(plan("checked", "j", 0, List.of(file, "not-there.jpg")))
                .post("/api/v1/plans").then().statusCode(400).body("field", equalTo("files[1]"));
        given().contentType(ContentType.JSON).body(plan("checked", "j", 0, List.of("../etc/passwd")))
                .post("/api/v1/plans").then().statusCode(400).body("field", equalTo("files[0]"));
        given().contentType(ContentType.JSON).body(plan("checked", "bad job", 0, List.of(file)))
                .post("/api/v1/plans").then().statusCode(400).body("field", equalTo("job"));
        given().contentType(ContentType.JSON).body(plan("checked", "j", 0, List.of()).replace("\"rank\":0",
                "\"rank\":2")).post("/api/v1/plans").then().statusCode(400).body("field", equalTo("rank"));
        given().get("/api/v1/plans/none.0").then().statusCode(404);
    }

    @Test
    void badPlansAreDeadLetteredWithTheirReasonAndTheNextGoodOneRuns() {
        List<String> paths = dataset("lettered", 3, 100, 6);
        Map<String, String> bad = Map.of(
                "{not json", "not a EpochPlan",
                plan("no-such-dataset", "a", 0, paths), "no dataset 'no-such-dataset'",
                plan("lettered", "b", 0, List.of(paths.get(0), "missing.jpg")), "files[1]",
                plan("lettered", "c", 0, paths).replace("\"worldSize\":1", "\"worldSize\":0"), "worldSize");
        // Through REST first: once it runs, the consumer has its partitions (it reads from the latest offset).
        given().contentType(ContentType.JSON).body(plan("lettered", "first", 0, paths)).post("/api/v1/plans").then()
                .statusCode(202);
        await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/api/v1/plans/first.0").statusCode() == 200);
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            bad.keySet().forEach(value -> records.add(new ProducerRecord<>(Topics.EPOCH_PLANS, "x", value)));
            records.add(new ProducerRecord<>(Topics.EPOCH_PLANS, "good.0", plan("lettered", "good", 0, paths)));
            kafka.produceStrings().fromRecords(records).awaitCompletion();

            await().atMost(Duration.ofSeconds(60)).until(() -> given().get("/api/v1/plans/good.0").statusCode()
                    == 200);
            List<ConsumerRecord<String, String>> dead = Cluster.deadLetters(kafka, Topics.EPOCH_PLANS,
                    List.copyOf(bad.keySet()));
            Map<String, String> reasons = dead.stream().collect(Collectors.toMap(ConsumerRecord::value, record ->
                    new String(record.headers().lastHeader(DeadLetter.REASON_HEADER).value(), StandardCharsets.UTF_8),
                    (a, b) -> a));
            bad.forEach((value, reason) -> assertThat(reasons.get(value)).as(value).contains(reason));
        }
    }

    /** A dataset of {@code count} local files of about {@code size} bytes, 1 MiB blocks; the paths of its files. */
    private List<String> dataset(String name, int count, int size, long seed) {
        Cluster cluster = new Cluster(metadataUrl);
        Cluster.files(localRoot.resolve(name), count, size, seed);
        cluster.dataset(name, "1MiB", Datasets.localMount(localRoot.resolve(name)));
        return cluster.files(name).stream().map(FileInfo::path).toList();
    }

    /** The file's one block, read from its owner as a job reads it. */
    private static void read(String dataset, FileInfo file, List<Worker> workers) {
        given().baseUri(owner(dataset, file, workers).address()).get(BlockApi.blockUri(dataset, 0, file.path(),
                file.etag(), file.size())).then().statusCode(200);
    }

    private static Worker owner(String dataset, FileInfo file, List<Worker> workers) {
        return RendezvousPlacement.owners(blockId(dataset, file), workers, Map.of(), 1).get(0);
    }

    private static String blockId(String dataset, FileInfo file) {
        return BlockId.of(dataset, file.path(), file.etag(), 0).toString();
    }

    /** The files' blocks the workers hold, with their lengths. */
    private static Map<String, Long> held(String dataset, List<FileInfo> files, List<Worker> workers) {
        Map<String, Long> held = new TreeMap<>();
        for (Worker worker : workers) {
            List<String> ids = files.stream().filter(file -> owner(dataset, file, workers).equals(worker))
                    .map(file -> blockId(dataset, file)).toList();
            held.putAll(given().baseUri(worker.address()).contentType(ContentType.JSON).body(ids)
                    .post("/blocks/" + dataset + "/held").then().statusCode(200).extract().jsonPath()
                    .getMap("$", String.class, Long.class));
        }
        return held;
    }

    /** The preload-service's count of the plans' blocks the workers answered with {@code result}. */
    private double planBlocks(String result) {
        return meters.counter("granary.preload.plan.blocks", "result", result).count();
    }

    private static JsonPath status(String id) {
        return given().get("/api/v1/plans/" + id).then().statusCode(200).extract().jsonPath();
    }

    private static String plan(String dataset, String job, int epoch, List<String> files) {
        return "{\"dataset\":\"" + dataset + "\",\"job\":\"" + job + "\",\"epoch\":" + epoch
                + ",\"rank\":0,\"worldSize\":1,\"seed\":7,\"listVersion\":\"v1\",\"files\":["
                + files.stream().map(path -> "\"" + path + "\"").collect(Collectors.joining(",")) + "]}";
    }
}
