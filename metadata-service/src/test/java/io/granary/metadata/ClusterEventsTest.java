package io.granary.metadata;

import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.KafkaResource;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.S3Resource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = S3Resource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = MetadataStateResource.class, restrictToAnnotatedClass = false)
class ClusterEventsTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    @TestHTTPResource
    URI api;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @Test
    void heartbeatsMakeAWorkerLiveAndSilenceMakesItLeave() throws Exception {
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap); AutoCloseable others = steady(kafka)) {
            kafka.produceStrings().fromRecords(new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-leaves",
                    heartbeat("w-leaves", "node-x", 0, 0, null))).awaitCompletion();

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/workers").then()
                    .body("find { it.id == 'w-leaves' }.live", equalTo(true)));
            // No more heartbeats while another worker's go on: after three missed intervals (1s each in tests) the
            // coordinator marks it gone.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/workers").then()
                    .body("find { it.id == 'w-leaves' }.live", equalTo(false)));

            List<String> membership = kafka.consumeStrings().fromTopics(Topics.DATASET_EVENTS)
                    .awaitRecords(2, Duration.ofSeconds(30)).getRecords().stream()
                    .filter(r -> "w-leaves".equals(r.key())).map(ConsumerRecord::value).toList();
            assertThat(membership).anySatisfy(v -> assertThat(v).contains("WORKER_JOINED"))
                    .anySatisfy(v -> assertThat(v).contains("WORKER_LEFT"));
        }
    }

    @Test
    void aWorkerIsLateByItsOwnHeartbeatPeriod() throws Exception {
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap); AutoCloseable others = steady(kafka)) {
            // Both beat once: one says it beats every second, the other every 20 s (this replica sweeps every 1 s).
            kafka.produceStrings().fromRecords(
                    new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-quick", withInterval(heartbeat("w-quick",
                            "node-q", 0, 0, null), "PT1S")),
                    new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-slow", withInterval(heartbeat("w-slow",
                            "node-q", 0, 0, null), "PT20S"))).awaitCompletion();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/workers").then()
                    .body("find { it.id == 'w-slow' }.live", equalTo(true)));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/workers").then()
                    .body("find { it.id == 'w-quick' }.live", equalTo(false)));
            given().get("/api/v1/workers").then().body("find { it.id == 'w-slow' }.live", equalTo(true));
        }
    }

    @Test
    void blockEventsAndHeartbeatsFeedTheDatasetStatistics() throws Exception {
        Files.write(Files.createDirectories(localRoot.resolve("stats")).resolve("a.bin"), new byte[4000]);
        Datasets.createBound(api,
                Datasets.spec("stats-data", "16MiB", Datasets.localMount(localRoot.resolve("stats"))));

        AtomicReference<String> reported = new AtomicReference<>();  // the heartbeats' cachedBytes, null: not reported
        ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            // A live worker beats every interval (1s in tests); this one twice as often.
            worker.scheduleAtFixedRate(() -> kafka.produceStrings().fromRecords(new ProducerRecord<>(
                    Topics.WORKER_HEARTBEATS, "w-stats", heartbeat("w-stats", "node-s", 3, 1, "stats-data",
                            reported.get()))).awaitCompletion(), 0, 500, TimeUnit.MILLISECONDS);
            kafka.produceStrings().fromRecords(
                    new ProducerRecord<>(Topics.BLOCK_EVENTS, "w-stats", block("CACHED", 1000)),
                    new ProducerRecord<>(Topics.BLOCK_EVENTS, "w-stats", block("CACHED", 2000)),
                    new ProducerRecord<>(Topics.BLOCK_EVENTS, "w-stats", block("EVICTED", 1000))).awaitCompletion();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/datasets/stats-data").then()
                    .body("status.cachedBytes", equalTo(2000))
                    .body("status.cachedPercentage", equalTo(50.0f))
                    .body("status.hitRatio", equalTo(0.75f)));
            // What an autoscaler reads (every heartbeat here reports 10 of 1000 bytes used).
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(given().get("/q/metrics").asString())
                    .contains("granary_dataset_cached_ratio{dataset=\"stats-data\"} 0.5\n")
                    .contains("granary_dataset_hit_ratio{dataset=\"stats-data\"} 0.75\n")
                    .contains("granary_cache_used_ratio 0.01\n")
                    .contains("granary_cache_hit_ratio 0.75\n"));
            given().get("/api/v1/datasets/stats-data/nodes").then().statusCode(200)
                    .body("[0].node", equalTo("node-s")).body("[0].cachedBytes", equalTo(2000))
                    .body("[0].workers", hasItem("w-stats"));

            // The worker's own totals replace what events added up (lost or redelivered events heal).
            reported.set("{\"stats-data\":3000}");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/datasets/stats-data")
                    .then().body("status.cachedBytes", equalTo(3000)));
        } finally {
            worker.shutdownNow();
        }
        // Silent while another worker is heard: once it has left, its cache no longer counts.
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap); AutoCloseable others = steady(kafka)) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/datasets/stats-data")
                    .then().body("status.cachedBytes", equalTo(0)));
        }
    }

    @Test
    void freeingACachePathAsksEveryWorkerOnKafkaAndRefusesBadInput() throws Exception {
        Files.write(Files.createDirectories(localRoot.resolve("free/train")).resolve("a.bin"), new byte[100]);
        given().contentType(ContentType.JSON).body(Map.of("name", "free-data",
                "mounts", List.of(Map.of("uri", localRoot.resolve("free").toUri().toString()))))
                .post("/api/v1/datasets").then().statusCode(201);

        given().queryParam("path", "/train//a/").delete("/api/v1/datasets/free-data/cache").then().statusCode(202)
                .body("dataset", equalTo("free-data")).body("path", equalTo("train/a/"));
        given().delete("/api/v1/datasets/free-data/cache").then().statusCode(202).body("path", equalTo(""));
        given().queryParam("path", "train/../../etc").delete("/api/v1/datasets/free-data/cache").then()
                .statusCode(400).body("field", equalTo("path"));
        given().delete("/api/v1/datasets/no-such-data/cache").then().statusCode(404);

        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            List<String> freed = kafka.consumeStrings().fromTopics(Topics.DATASET_EVENTS, records -> records
                            .filter(r -> "free-data".equals(r.key()) && r.value().contains("CACHE_FREED"))
                            .select().first(2))
                    .awaitCompletion(Duration.ofSeconds(30))
                    .getRecords().stream().map(ConsumerRecord::value).toList();
            assertThat(freed).hasSize(2);
            assertThat(freed.get(0)).contains("\"path\":\"train/a/\"");
        }
    }

    @Test
    void malformedMessagesOnEveryTopicGoToTheDeadLetterTopicAndTheNextGoodOneIsProcessed() {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (String topic : List.of(Topics.WORKER_HEARTBEATS, Topics.BLOCK_EVENTS, Topics.PRELOAD_STATUS)) {
            for (int i = 0; i < 100; i++) {
                String bad = switch (i % 4) {
                    case 0 -> "{not json " + i;
                    case 1 -> "[1,2,3]";
                    case 2 -> "null";
                    default -> "{\"unexpected\":true}";
                };
                records.add(new ProducerRecord<>(topic, "bad-" + i, bad));
            }
        }
        records.add(new ProducerRecord<>(Topics.WORKER_HEARTBEATS, "w-after-dlq", heartbeat("w-after-dlq", "node-d", 0, 0, null)));
        records.add(new ProducerRecord<>(Topics.PRELOAD_STATUS, "load-1", """
                {"id":"load-1","dataset":"d","phase":"Loading","filesDone":1,"filesTotal":2}"""));

        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            kafka.produceStrings().fromRecords(records).awaitCompletion();
            List<ConsumerRecord<String, String>> dead = kafka.consumeStrings().fromTopics(Topics.DEADLETTER)
                    .awaitRecords(300, Duration.ofSeconds(120)).getRecords();
            assertThat(dead.stream().filter(r -> r.key().startsWith("bad-"))).hasSize(300);
            assertThat(dead).allSatisfy(r -> assertThat(header(r, DeadLetter.REASON_HEADER)).isNotBlank());
            assertThat(dead.stream().map(r -> header(r, DeadLetter.TOPIC_HEADER)).distinct())
                    .containsExactlyInAnyOrder(Topics.WORKER_HEARTBEATS, Topics.BLOCK_EVENTS, Topics.PRELOAD_STATUS);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/api/v1/workers").then()
                .body("id", hasItem("w-after-dlq")));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(given().get("/q/metrics").asString())
                .contains("granary_events_deadlettered_total{topic=\"" + Topics.BLOCK_EVENTS + "\"} 100.0")
                .contains("granary_events_deadlettered_total{topic=\"" + Topics.WORKER_HEARTBEATS + "\"} 100.0")
                .contains("granary_events_deadlettered_total{topic=\"" + Topics.PRELOAD_STATUS + "\"} 100.0"));
    }

    private static String header(ConsumerRecord<String, String> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private static String heartbeat(String worker, String node, long hits, long misses, String dataset) {
        return heartbeat(worker, node, hits, misses, dataset, null);
    }

    private static String heartbeat(String worker, String node, long hits, long misses, String dataset,
                                    String cachedBytes) {
        String reads = dataset == null ? "{}" : "{\"" + dataset + "\":{\"hits\":" + hits + ",\"misses\":" + misses + "}}";
        return """
                {"workerId":"%s","node":"%s","address":"http://127.0.0.1:8082","labels":{},
                 "levels":[{"medium":"MEM","path":"/dev/shm/g","quotaBytes":1000,"usedBytes":10}],
                 "hits":%d,"misses":%d,"bytesServed":0,"underStoreBytesRead":0,"datasets":%s,"cachedBytes":%s,"at":"%s"}"""
                .formatted(worker, node, hits, misses, reads, cachedBytes, Instant.now());
    }

    /**
     * A worker that beats every half second until closed: a silent worker is late only while others are heard (a
     * coordinator that hears nobody is rebalancing, not watching every worker die).
     */
    private static AutoCloseable steady(KafkaCompanion kafka) {
        ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
        beats.scheduleAtFixedRate(() -> kafka.produceStrings().fromRecords(new ProducerRecord<>(
                Topics.WORKER_HEARTBEATS, "w-steady", withInterval(heartbeat("w-steady", "node-steady", 0, 0, null),
                        "PT1S"))).awaitCompletion(), 0, 500, TimeUnit.MILLISECONDS);
        return beats::shutdownNow;
    }

    private static String withInterval(String heartbeat, String interval) {
        return heartbeat.replace("\"at\":", "\"interval\":\"" + interval + "\",\"at\":");
    }

    private static String block(String type, long bytes) {
        return """
                {"type":"%s","workerId":"w-stats","node":"node-s","dataset":"stats-data",
                 "blocks":1,"bytes":%d,"medium":"MEM","at":"%s"}"""
                .formatted(type, bytes, Instant.now());
    }
}
