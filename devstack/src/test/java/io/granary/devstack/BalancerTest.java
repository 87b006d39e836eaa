package io.granary.devstack;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class BalancerTest {

    /** The balancer checks readiness every 500 ms: a change it has not seen by then, it never saw. */
    private static final Duration READINESS = Duration.ofSeconds(10);

    private final List<HttpServer> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(server -> server.stop(0));
    }

    @Test
    void spreadsOverReadyReplicasAndPassesOverOnesThatAreDownOrNotReady() throws Exception {
        AtomicBoolean secondReady = new AtomicBoolean(true);
        HttpServer first = replica("first", new AtomicBoolean(true));
        HttpServer second = replica("second", secondReady);
        int gone = Ports.free();  // nothing listens there: a replica that was killed
        List<String> backends = List.of(address(first), address(second), "127.0.0.1:" + gone);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

        try (Balancer balancer = Balancer.start("127.0.0.1", 0, backends, "/q/health/ready")) {
            assertThat(balancer.ready()).containsExactlyInAnyOrder(address(first), address(second));
            URI uri = URI.create("http://127.0.0.1:" + balancer.port() + "/who");
            Set<String> answered = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                // A new connection each time, as a client after a reset: each is placed anew.
                HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).isEqualTo(200);
                answered.add(answer.body());
            }
            assertThat(answered).containsExactlyInAnyOrder("first", "second");

            secondReady.set(false);  // failing its readiness check: no longer an endpoint
            await().atMost(READINESS).until(() -> !balancer.ready().contains(address(second)));
            for (int i = 0; i < 6; i++) {
                assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                        HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("first");
            }

            // Every replica down: a large body still passes whole through whatever answers once it is back.
            first.stop(0);
            servers.remove(first);
            secondReady.set(true);
            await().atMost(READINESS).until(() -> balancer.ready().equals(List.of(address(second))));
            HttpResponse<byte[]> big = http.send(HttpRequest.newBuilder(uri.resolve("/big")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(big.body()).hasSize(8 << 20);
        }
    }

    private HttpServer replica(String name, AtomicBoolean ready) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/q/health/ready", exchange -> {
            exchange.sendResponseHeaders(ready.get() ? 200 : 503, -1);
            exchange.close();
        });
        server.createContext("/who", exchange -> {
            byte[] body = name.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.createContext("/big", exchange -> {
            exchange.sendResponseHeaders(200, 8 << 20);
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < 8; i++) {
                exchange.getResponseBody().write(chunk);
            }
            exchange.close();
        });
        server.start();
        servers.add(server);
        return server;
    }

    private static String address(HttpServer server) {
        return "127.0.0.1:" + server.getAddress().getPort();
    }
}
