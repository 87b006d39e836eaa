package io.granary.metadata;

import io.granary.contracts.events.Topics;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.KafkaResource;
import io.granary.devstack.testing.S3Resource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The metadata-service's own port as an outsider finds it: hostile requests by the thousand get a 4xx and never
 * a 5xx, every management change is on {@code granary.audit} with who made it, and the identities change without
 * a restart. (Who may make which call, over every service's OpenAPI: the e2e scenario.)
 */
@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = S3Resource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = MetadataStateResource.class, restrictToAnnotatedClass = false)
class AccessTest {

    @TestHTTPResource("/")
    URI base;

    @ConfigProperty(name = "granary.secrets-dir")
    Path secrets;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void aThousandHostileRequestsGetA4xxEachAndTheServiceCarriesOn() throws IOException {
        Random random = new Random(20261124L);
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (int i = 0; i < 1000; i++) {
            String request = hostile(i, random);
            int status = send(request);
            assertThat(status).as("request %d:%n%s", i, request.length() > 400 ? request.substring(0, 400) : request)
                    .isBetween(400, 499);
            statuses.merge(status, 1, Integer::sum);
        }
        assertThat(statuses).containsKeys(400, 401, 403, 404);
        assertThat(send("GET /q/health/live HTTP/1.1\r\nHost: x\r\n\r\n")).isEqualTo(200);
    }

    @Test
    void everyChangeIsAuditedWithWhoWhatAndHowItEnded() throws IOException {
        try (KafkaCompanion kafka = new KafkaCompanion(bootstrap)) {
            var audit = kafka.consumeStrings().fromTopics(Topics.AUDIT, records -> records
                    .filter(r -> r.value().contains("\"target\":\"audited\"")).select().first(3));
            assertThat(send("DELETE /api/v1/datasets/audited HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + Identities.READER.authorization() + "\r\n\r\n")).isEqualTo(403);
            assertThat(send("DELETE /api/v1/datasets/audited HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + Identities.ADMIN.authorization() + "\r\n\r\n")).isEqualTo(404);
            assertThat(send("POST /api/v1/datasets/audited/sync HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + Identities.OTHER_ADMIN.authorization() + "\r\nContent-Length: 0\r\n\r\n")).isEqualTo(403);
            List<String> records = audit.awaitCompletion(Duration.ofSeconds(30)).getRecords().stream()
                    .map(ConsumerRecord::value).toList();
            assertThat(records).anySatisfy(record -> assertThat(record).contains("\"who\":\"reader\"",
                    "\"action\":\"dataset.delete\"", "\"outcome\":\"denied\"", "\"status\":403"));
            assertThat(records).anySatisfy(record -> assertThat(record).contains("\"who\":\"admin\"",
                    "\"action\":\"dataset.delete\"", "\"outcome\":\"failed\"", "\"status\":404",
                    "\"service\":\"metadata-service\""));
            assertThat(records).anySatisfy(record -> assertThat(record).contains("\"who\":\"other-admin\"",
                    "\"action\":\"dataset.sync\"", "\"outcome\":\"denied\""));
        }
    }

    @Test
    void identitiesAndTheirRolesChangeWithoutARestart() throws IOException {
        Path file = secrets.resolve("granary-access/identities.json");
        String before = Files.readString(file);
        Path secret = Files.createDirectories(secrets.resolve("test-newcomer"));
        Files.writeString(secret.resolve("token"), "test-newcomer-token");
        String listing = "GET /api/v1/workers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-newcomer-token\r\n\r\n";
        assertThat(send(listing)).isEqualTo(401);
        try {
            Files.writeString(file, before.replace("{\"identities\": [",
                    "{\"identities\": [{\"name\":\"newcomer\",\"role\":\"reader\",\"credentialsRef\":\"test-newcomer\"},"));
            await().atMost(Duration.ofSeconds(10)).until(() -> send(listing) == 403);  // known now, not an admin
            Files.writeString(file, before.replace("{\"identities\": [",
                    "{\"identities\": [{\"name\":\"newcomer\",\"role\":\"admin\",\"credentialsRef\":\"test-newcomer\"},"));
            await().atMost(Duration.ofSeconds(10)).until(() -> send(listing) == 200);
            Files.writeString(file, "{\"identities\": [ this is not json");  // a bad edit keeps what was there
            await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(10)).until(() -> send(listing) == 200);
        } finally {
            Files.writeString(file, before);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> send(listing) == 401);
    }

    /** One malformed or hostile request of ten kinds, as raw HTTP/1.1 so nothing tidies it on the way. */
    private static String hostile(int i, Random random) {
        String admin = "Authorization: " + Identities.ADMIN.authorization() + "\r\n";
        String reader = "Authorization: " + Identities.READER.authorization() + "\r\n";
        String name = List.of("..%2F..%2Fetc", "%2e%2e", "a%00b", "x".repeat(300), "%C0%AE%C0%AE", "UPPER", "-",
                "a/../../q/health", "%252e%252e", "\u00e9t\u00e9").get(random.nextInt(10));
        return switch (i % 10) {
            case 0 -> post("/api/v1/datasets", admin, garbage(random));                    // not JSON
            case 1 -> post("/api/v1/datasets", admin, "{\"name\":\"" + name + "\",\"mounts\":[{\"uri\":\"file:///etc\"}]}");
            case 2 -> post("/api/v1/datasets", admin, "{\"name\":" + "[".repeat(2000 + random.nextInt(3000)));
            case 3 -> "GET /api/v1/datasets/" + name + "/files/..%2F..%2F..%2Fetc%2Fpasswd HTTP/1.1\r\nHost: x\r\n"
                    + admin + "\r\n";
            case 4 -> List.of("PATCH", "PUT", "TRACE", "PROPFIND", "CONNECT").get(random.nextInt(5))
                    + " /api/v1/datasets/" + name + " HTTP/1.1\r\nHost: x\r\n" + admin + "Content-Length: 0\r\n\r\n";
            case 5 -> "GET /api/v1/datasets HTTP/1.1\r\nHost: x\r\nAuthorization: "
                    + List.of("Bearer", "Bearer " + "z".repeat(5000), "Basic YWRtaW46YWRtaW4=",
                    "AWS4-HMAC-SHA256 Credential=x/y, SignedHeaders=host, Signature=00", "Bearer  ",
                    "Bearer test-admin-tokenX").get(random.nextInt(6)) + "\r\n\r\n";
            case 6 -> "GET /api/v1/datasets HTTP/1.1\r\nHost: x\r\nX-Injected: a\rb\r\n" + admin + "\r\n";
            case 7 -> "DELETE /api/v1/datasets/" + name + "/cache?path=" + List.of("../../etc", "%00", "a/../../b")
                    .get(random.nextInt(3)) + " HTTP/1.1\r\nHost: x\r\n" + reader + "\r\n";
            case 8 -> i % 100 == 8
                    ? post("/api/v1/datasets", admin, "x".repeat(11 << 20))                  // past the body limit
                    : post("/api/v1/datasets", "", "{\"name\":\"anonymous\"}");
            default -> "GET /api/v1/" + "../".repeat(random.nextInt(5)) + "datasets/" + name
                    + "?limit=-1&cursor=%ZZ HTTP/1.1\r\nHost: x\r\n" + (random.nextBoolean() ? admin : "") + "\r\n";
        };
    }

    private static String post(String path, String headers, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\n" + headers + "Content-Type: application/json\r\n"
                + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static String garbage(Random random) {
        byte[] bytes = new byte[1 + random.nextInt(200)];
        random.nextBytes(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1).replace('\u0000', ' ');
    }

    /** @return the status the service answered with (the connection is closed after) */
    private int send(String request) throws IOException {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.UTF_8));
                out.flush();
            } catch (IOException e) {
                // the service may answer (413, 400) and close before a large body is all sent: read its answer
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                line.write(b);
            }
            String status = line.toString(StandardCharsets.ISO_8859_1);
            assertThat(status).as("the status line of%n%s", request.length() > 300 ? request.substring(0, 300) : request)
                    .startsWith("HTTP/1.1 ");
            return Integer.parseInt(status.substring(9, 12));
        }
    }
}
