package io.granary.metadata;

import io.granary.devstack.KafkaBroker;
import io.granary.devstack.Ports;
import io.granary.devstack.S3ProxyServer;
import io.granary.devstack.ServiceProcess;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.TempDirs;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Two metadata-service replicas as separate processes (the packaged jar), clustered over JGroups on loopback: what
 * one is told the other serves, a replica that was down catches up, a full restart keeps everything, and a listing
 * whose replica dies is finished by the other.
 */
class ReplicasIT {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    private static final String ACCESS_KEY = "replicas-access";
    private static final String SECRET_KEY = "replicas-secret-0123456789";

    private static Path dir;
    private static KafkaBroker kafka;
    private static S3ProxyServer s3;
    private static int[] clusterPorts;
    private static int[] httpPorts;
    private final ServiceProcess[] replicas = new ServiceProcess[2];
    private Path state;

    @BeforeEach
    void freshState() throws IOException {
        state = Files.createTempDirectory(dir, "state");
    }

    @BeforeAll
    static void outsideWorld() throws IOException {
        dir = Files.createTempDirectory(Path.of("target"), "replicas").toAbsolutePath();
        kafka = KafkaBroker.start(dir.resolve("kafka"));
        s3 = S3ProxyServer.start(dir.resolve("s3"), ACCESS_KEY, SECRET_KEY);
        Path secret = Files.createDirectories(dir.resolve("secrets/replicas-s3"));
        Files.writeString(secret.resolve("accessKey"), ACCESS_KEY);
        Files.writeString(secret.resolve("secretKey"), SECRET_KEY);
        Identities.write(dir.resolve("secrets"));
        clusterPorts = new int[] {Ports.freeForPeers(), Ports.freeForPeers()};
        httpPorts = Ports.free(2);
    }

    @AfterAll
    static void stopOutsideWorld() {
        if (s3 != null) {
            s3.kill();  // the tests are over and their files go next: a graceful stop would only take seconds
        }
        if (kafka != null) {
            kafka.kill();
        }
        TempDirs.deleteQuietly(dir);
    }

    @AfterEach
    void stopReplicas() {
        for (int i = 0; i < replicas.length; i++) {
            stop(i);
        }
    }

    @Test
    void aReplicaThatWasDownCatchesUpAndAFullRestartKeepsEverything() throws IOException {
        Path local = localFiles("train", 25);
        start(0);
        start(1);
        create(0, "before", "{\"uri\":\"" + local.toUri() + "\"}").then().statusCode(201);
        awaitBound(1, "before");
        given().baseUri(url(1)).get("/api/v1/datasets/before").then().body("status.fileCount", equalTo(25));

        stop(0);
        given().baseUri(url(1)).get("/api/v1/datasets/before").then().statusCode(200);
        create(1, "while-down", "{\"uri\":\"" + local.toUri() + "\"}").then().statusCode(201);
        awaitBound(1, "while-down");
        given().baseUri(url(1)).delete("/api/v1/datasets/before").then().statusCode(204);

        start(0);
        given().baseUri(url(0)).get("/api/v1/datasets/while-down").then().statusCode(200)
                .body("status.phase", equalTo("Bound")).body("status.fileCount", equalTo(25));
        given().baseUri(url(0)).get("/api/v1/datasets/before").then().statusCode(404);

        stop(0);
        stop(1);
        start(1);
        start(0);
        for (int i = 0; i < 2; i++) {
            given().baseUri(url(i)).get("/api/v1/datasets").then().statusCode(200).body("spec.name",
                    equalTo(List.of("while-down")));
            given().baseUri(url(i)).get("/api/v1/datasets/while-down/files?prefix=train/&limit=1000").then()
                    .body("files.size()", equalTo(25));
        }
    }

    @Test
    void aListingLostWithItsReplicaIsFinishedByTheOther() throws IOException {
        int objects = 8_000;  // S3Proxy lists a few thousand objects a second: long enough to stop a replica mid-way
        Path bucket = dir.resolve("s3/buckets/slow");
        for (int i = 0; i < objects; i++) {
            Path file = bucket.resolve("d" + (i % 40)).resolve("f-" + i);
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[i % 50]);
        }
        start(0);
        start(1);
        create(0, "slow", "{\"uri\":\"s3://slow/\",\"credentialsRef\":\"replicas-s3\",\"options\":{\"endpoint\":\""
                + s3.endpoint() + "\",\"pathStyle\":\"true\"}}").then().statusCode(201);
        assertThat(given().baseUri(url(1)).get("/api/v1/datasets/slow").jsonPath().getString("status.phase"))
                .as("still listing when its replica stops").isEqualTo("Pending");

        stop(0);

        await().atMost(Duration.ofSeconds(180)).until(() -> "Bound".equals(
                given().baseUri(url(1)).get("/api/v1/datasets/slow").jsonPath().getString("status.phase")));
        given().baseUri(url(1)).get("/api/v1/datasets/slow").then().body("status.fileCount", equalTo(objects));
    }

    private void start(int i) throws IOException {
        Map<String, String> config = new HashMap<>();
        config.put("kafka.bootstrap.servers", kafka.bootstrapServers());
        config.put("granary.metadata.data-dir", state.resolve("replica-" + i).toString());
        config.put("granary.allowed-roots", dir.resolve("local").toString());
        config.put("granary.secrets-dir", dir.resolve("secrets").toString());
        config.put("granary.metadata.sweep-interval", "1s");
        config.put("granary.metadata.resync-check", "1s");
        config.put("granary.metadata.cluster.node-name", "replica-" + i);
        config.put("granary.metadata.cluster.bind-port", Integer.toString(clusterPorts[i]));
        config.put("granary.metadata.cluster.initial-hosts",
                "127.0.0.1[" + clusterPorts[0] + "],127.0.0.1[" + clusterPorts[1] + "]");
        replicas[i] = ServiceProcess.start("metadata-service", httpPorts[i], config, state.resolve("logs-" + i));
    }

    private void stop(int i) {
        if (replicas[i] != null) {
            replicas[i].close();
            replicas[i] = null;
        }
    }

    private static String url(int i) {
        return "http://127.0.0.1:" + httpPorts[i];
    }

    private static io.restassured.response.Response create(int replica, String name, String mount) {
        return given().baseUri(url(replica)).contentType(ContentType.JSON)
                .body("{\"name\":\"" + name + "\",\"mounts\":[" + mount + "]}").post("/api/v1/datasets");
    }

    private static void awaitBound(int replica, String name) {
        Datasets.awaitBound(URI.create(url(replica)), name);
    }

    private static Path localFiles(String sub, int count) throws IOException {
        Path root = Files.createDirectories(dir.resolve("local").resolve(sub));
        for (int i = 0; i < count; i++) {
            Files.writeString(root.resolve("f-" + i), "x".repeat(i));
        }
        return dir.resolve("local");
    }
}
