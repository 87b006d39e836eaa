package io.granary.preload;

import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.Ports;
import io.granary.devstack.ServiceProcess;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.preload.service.DataLoads;
import io.restassured.http.ContentType;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged preload-service killed in the middle of a load and started again on the same data directory: the
 * load resumes (blocks already cached cost a lookup) and ends with everything on the workers. And a worker killed
 * in the middle of a load: its batches go to the workers that own their blocks once it is gone. And what Kafka
 * carried before the service ever ran is taken when it first starts.
 */
class ResumeIT {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    private static StackResource stack;
    private static Map<String, String> config;

    @BeforeAll
    static void stack() {
        stack = new StackResource();
        stack.init(Map.of("services", "metadata-service,block-service"));
        config = stack.start();
    }

    @AfterAll
    static void stop() {
        stack.stop();
    }

    /** 8 MiB/s: a load of 80 MiB takes ten seconds, and its second batch goes out seconds after the first. */
    private static Map<String, String> preloadConfig(Path data) {
        return Map.of(
                "kafka.bootstrap.servers", config.get("kafka.bootstrap.servers"),
                "granary.metadata-url", config.get("granary.metadata-url"),
                "granary.secrets-dir", config.get("granary.secrets-dir"),
                "granary.preload.data-dir", data.toString(),
                "granary.preload.bandwidth-limit", "8MiB");
    }

    /** A DataLoad of the whole dataset posted to the preload-service at url, once it has loaded its first bytes. */
    private static String loadUnderWay(String url, String dataset) {
        String id = given().baseUri(url).contentType(ContentType.JSON)
                .body("{\"dataset\":\"" + dataset + "\",\"targets\":[{\"path\":\"\"}]}").post("/api/v1/dataloads")
                .then().statusCode(202).extract().jsonPath().getString("id");
        await().atMost(Duration.ofSeconds(60)).until(() -> given().baseUri(url).get("/api/v1/dataloads/" + id)
                .jsonPath().getLong("bytesDone") > 0);
        return id;
    }

    @Test
    void cancelStopsALoadMidWay() throws IOException {
        Path local = Path.of(config.get("granary.allowed-roots"));
        Cluster.files(local.resolve("halt"), 40, 2 << 20, 12);
        Cluster cluster = new Cluster(config.get("granary.metadata-url"));
        cluster.dataset("halt", "1MiB", Datasets.localMount(local.resolve("halt")));
        String worker = cluster.liveWorkers(1).get(0).address();
        Path data = Files.createDirectories(Path.of(config.get("test.work-dir")).resolve("halt"));
        int port = Ports.free();
        String url = "http://127.0.0.1:" + port;
        try (ServiceProcess preload = ServiceProcess.start("preload-service", port, preloadConfig(data), data)) {
            String id = loadUnderWay(url, "halt");

            given().baseUri(url).delete("/api/v1/dataloads/" + id).then().statusCode(202);

            await().atMost(Duration.ofSeconds(30)).until(() -> "Cancelled".equals(given().baseUri(url)
                    .get("/api/v1/dataloads/" + id).jsonPath().getString("phase")));
            long held = Cluster.heldBy(worker, "halt");
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> Cluster.heldBy(worker, "halt") == held);
            long total = cluster.files("halt").stream().mapToLong(FileInfo::size).sum();
            assertThat(held).as("stopped before the end").isLessThan(total);
        }
    }

    @Test
    void aLoadWhoseWorkerIsKilledCompletesOnTheOthers() throws IOException {
        Path local = Path.of(config.get("granary.allowed-roots"));
        Cluster.files(local.resolve("rehome"), 40, 2 << 20, 13);
        Cluster cluster = new Cluster(config.get("granary.metadata-url"));
        cluster.dataset("rehome", "1MiB", Datasets.localMount(local.resolve("rehome")));
        String survivor = cluster.liveWorkers(1).get(0).address();
        ServiceProcess doomed = stack.startAnother("block-service");
        cluster.liveWorkers(2);
        Path data = Files.createDirectories(Path.of(config.get("test.work-dir")).resolve("rehome"));
        int port = Ports.free();
        String url = "http://127.0.0.1:" + port;
        try (ServiceProcess preload = ServiceProcess.start("preload-service", port, preloadConfig(data), data)) {
            String id = loadUnderWay(url, "rehome");
            doomed.kill();  // SIGKILL, never restarted: it leaves the membership once its heartbeats stop

            await().atMost(Duration.ofSeconds(180)).until(() -> List.of("Complete", "Failed", "Cancelled")
                    .contains(given().baseUri(url).get("/api/v1/dataloads/" + id).jsonPath().getString("phase")));
            var status = given().baseUri(url).get("/api/v1/dataloads/" + id).jsonPath();
            assertThat(status.getString("phase")).as("errors: %s", status.getList("errors")).isEqualTo("Complete");
            assertThat(status.getLong("filesDone")).isEqualTo(40);
        } finally {
            doomed.close();
        }
        // What the killed worker had taken is gone with it; the rest, every block it was still to take included,
        // is on the survivor, which owns every block now.
        long total = cluster.files("rehome").stream().mapToLong(FileInfo::size).sum();
        assertThat(Cluster.heldBy(survivor, "rehome")).isPositive().isLessThanOrEqualTo(total);
        cluster.liveWorkers(1);
    }

    /**
     * A preload request and an epoch plan sent while no preload-service had ever run (a fresh system, a pipeline
     * quicker than the service): the first one to start takes both. Consumer groups of their own make it that
     * service's first start whatever ran before in this class.
     */
    @Test
    void whatWasSentBeforeTheFirstStartIsTaken() throws IOException {
        Path local = Path.of(config.get("granary.allowed-roots"));
        Cluster.files(local.resolve("early"), 4, 4096, 14);
        Cluster cluster = new Cluster(config.get("granary.metadata-url"));
        cluster.dataset("early", "1MiB", Datasets.localMount(local.resolve("early")));
        cluster.liveWorkers(1);
        String plan = "{\"dataset\":\"early\",\"job\":\"early-job\",\"epoch\":0,\"rank\":0,\"worldSize\":1,"
                + "\"seed\":7,\"listVersion\":\"v1\",\"files\":[" + String.join(",", cluster.files("early").stream()
                .map(file -> "\"" + file.path() + "\"").toList()) + "]}";
        try (KafkaCompanion kafka = new KafkaCompanion(config.get("kafka.bootstrap.servers"))) {
            kafka.produceStrings().fromRecords(
                    new ProducerRecord<>(Topics.PRELOAD_REQUESTS, "early", "{\"requestId\":\"before-start\","
                            + "\"dataset\":\"early\",\"targets\":[{\"path\":\"\"}]}"),
                    new ProducerRecord<>(Topics.EPOCH_PLANS, "early-job.0", plan)).awaitCompletion();
        }
        Path data = Files.createDirectories(Path.of(config.get("test.work-dir")).resolve("early"));
        Map<String, String> properties = new HashMap<>(preloadConfig(data));
        properties.put("mp.messaging.incoming.\"" + Topics.PRELOAD_REQUESTS + "\".group.id", "first-start-requests");
        properties.put("mp.messaging.incoming.\"" + Topics.EPOCH_PLANS + "\".group.id", "first-start-plans");
        int port = Ports.free();
        String url = "http://127.0.0.1:" + port;
        try (ServiceProcess preload = ServiceProcess.start("preload-service", port, properties, data)) {
            String id = DataLoads.idOf("before-start");
            await().atMost(Duration.ofSeconds(120)).until(() -> "Complete".equals(given().baseUri(url)
                    .get("/api/v1/dataloads/" + id).jsonPath().getString("phase")));
            await().atMost(Duration.ofSeconds(60)).until(() -> given().baseUri(url).get("/api/v1/plans/early-job.0")
                    .statusCode() == 200);
        }
    }

    @Test
    void aLoadInterruptedByARestartCompletes() throws IOException {
        Path local = Path.of(config.get("granary.allowed-roots"));
        Cluster.files(local.resolve("resume"), 40, 2 << 20, 11);  // 80 MiB at 8 MiB/s: ten seconds of loading
        Cluster cluster = new Cluster(config.get("granary.metadata-url"));
        cluster.dataset("resume", "1MiB", Datasets.localMount(local.resolve("resume")));
        List<Worker> workers = cluster.liveWorkers(1);
        Path data = Files.createDirectories(Path.of(config.get("test.work-dir")).resolve("preload"));
        int port = Ports.free();
        Map<String, String> properties = preloadConfig(data);
        String url = "http://127.0.0.1:" + port;
        String id;
        try (ServiceProcess preload = ServiceProcess.start("preload-service", port, properties, data.resolve("logs"))) {
            id = loadUnderWay(url, "resume");
            preload.kill();  // SIGKILL mid-load: nothing gets to save or say goodbye
        }
        long heldAtStop = Cluster.heldBy(workers.get(0).address(), "resume");
        long total = cluster.files("resume").stream().mapToLong(FileInfo::size).sum();
        assertThat(heldAtStop).as("stopped mid-way").isLessThan(total);

        try (ServiceProcess preload = ServiceProcess.start("preload-service", port, properties, data.resolve("logs2"))) {
            await().atMost(Duration.ofSeconds(120)).until(() -> "Complete".equals(given().baseUri(url)
                    .get("/api/v1/dataloads/" + id).jsonPath().getString("phase")));
            given().baseUri(url).get("/api/v1/dataloads/" + id).then().statusCode(200);
            assertThat(given().baseUri(url).get("/api/v1/dataloads/" + id).jsonPath().getLong("filesDone"))
                    .isEqualTo(40);
        }
        assertThat(Cluster.heldBy(workers.get(0).address(), "resume")).isEqualTo(total);
    }
}
