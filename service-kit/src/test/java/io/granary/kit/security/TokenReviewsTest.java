package io.granary.kit.security;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ServiceAccount tokens against an HTTP server that answers TokenReviews as the API server does (no Kubernetes
 * runs here): the reviewer's own token goes along, a review is asked once and kept, a refusal or an unreachable
 * server lets no one in.
 */
class TokenReviewsTest {

    @TempDir
    Path serviceAccount;

    private HttpServer apiServer;
    private final List<String> reviews = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (apiServer != null) {
            apiServer.stop(0);
        }
    }

    @Test
    void aReviewedTokenIsItsServiceAccountAndIsAskedOnce() throws IOException {
        TokenReviews tokens = reviewer(startApiServer());
        assertThat(tokens.username("trainer-token")).contains("system:serviceaccount:ml:trainer");
        assertThat(tokens.username("trainer-token")).contains("system:serviceaccount:ml:trainer");
        assertThat(tokens.username("stolen-token")).isEmpty();
        assertThat(reviews).hasSize(2);
        assertThat(reviews.get(0)).contains("\"kind\":\"TokenReview\"", "\"token\":\"trainer-token\"")
                .contains("authorization=Bearer reviewer-token");
    }

    @Test
    void anUnreachableApiServerLetsNoOneIn() throws IOException {
        URI gone = startApiServer();
        apiServer.stop(0);
        apiServer = null;
        assertThat(reviewer(gone).username("trainer-token")).isEmpty();
    }

    private URI startApiServer() throws IOException {
        apiServer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        apiServer.createContext("/apis/authentication.k8s.io/v1/tokenreviews", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            reviews.add(body + " authorization=" + exchange.getRequestHeaders().getFirst("Authorization"));
            String answer = body.contains("\"trainer-token\"")
                    ? "{\"status\":{\"authenticated\":true,\"user\":{\"username\":\"system:serviceaccount:ml:trainer\"}}}"
                    : "{\"status\":{\"authenticated\":false,\"error\":\"invalid bearer token\"}}";
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(201, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        apiServer.start();
        return URI.create("http://127.0.0.1:" + apiServer.getAddress().getPort());
    }

    private TokenReviews reviewer(URI api) throws IOException {
        Files.writeString(serviceAccount.resolve("token"), "reviewer-token\n");
        SecurityConfig.TokenReview review = new SecurityConfig.TokenReview() {
            public boolean enabled() {
                return true;
            }

            public URI apiServer() {
                return api;
            }

            public Path serviceAccountDir() {
                return serviceAccount;
            }

            public Duration cacheFor() {
                return Duration.ofMinutes(1);
            }
        };
        return new TokenReviews(review);
    }
}
