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
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Epoch plans against real workers (child processes) and Kafka: the prefetch runs a window ahead of the position
 * the workers saw read, and stops with its reader; bad plans are refused over REST and dead-lettered from Kafka.
 * The window is 64 KiB here (the test profile), about 21 of these files.
 */
@QuarkusTest
@QuarkusTestResource(value = StackResource.class, restrictToAnnotatedClass = false,
        initArgs = @ResourceArg(name = "services", value = "metadata-service,block-service,block-service"))
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
        await().atMost(Duration.ofSeconds(30)).until(() -> status("train.0").getInt("fetched") > 0);
        assertThat(status("train.0").getInt("fetched")).as("nothing read yet: one window ahead of the start")
                .isLessThanOrEqualTo(WINDOW_BLOCKS);

        int read = 60;
        for (FileInfo file : files.subList(0, read)) {  // the job reads its first files from their owners
            given().baseUri(owner(file, workers).address()).get(BlockApi.blockUri("epochs", 0, file.path(),
                    file.etag())).then().statusCode(200);
        }
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

    private static Worker owner(FileInfo file, List<Worker> workers) {
        String block = BlockId.of("epochs", file.path(), file.etag(), 0).toString();
        return RendezvousPlacement.owners(block, workers, Map.of(), 1).get(0);
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
