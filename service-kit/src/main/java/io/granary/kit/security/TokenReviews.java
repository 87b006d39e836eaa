package io.granary.kit.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A Kubernetes ServiceAccount token's user, as the API server's TokenReview says ({@code authenticated} and
 * {@code user.username}); answers are kept {@code cache-for}, so a pod's calls cost one review a minute. Off
 * outside Kubernetes ({@code granary.security.token-review.enabled}).
 */
@ApplicationScoped
public class TokenReviews {

    private static final Logger LOG = Logger.getLogger(TokenReviews.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Answer(Optional<String> username, long until) {
    }

    private final SecurityConfig.TokenReview config;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private volatile HttpClient http;

    @Inject
    TokenReviews(SecurityConfig config) {
        this(config.tokenReview());
    }

    TokenReviews(SecurityConfig.TokenReview config) {
        this.config = config;
    }

    public boolean enabled() {
        return config.enabled();
    }

    /** Blocks on the API server (call it off the event loop); empty when the token is not a valid one. */
    public Optional<String> username(String token) {
        String key = AccessList.hash(token);
        long now = System.nanoTime();
        Answer cached = answers.get(key);
        if (cached != null && now - cached.until() < 0) {
            return cached.username();
        }
        Optional<String> username = review(token);
        if (answers.size() > 10_000) {
            answers.clear();  // tokens rotate; a bound keeps guessed ones from piling up
        }
        answers.put(key, new Answer(username, now + config.cacheFor().toNanos()));
        return username;
    }

    private Optional<String> review(String token) {
        try {
            Path dir = config.serviceAccountDir();
            String body = JSON.writeValueAsString(Map.of("apiVersion", "authentication.k8s.io/v1",
                    "kind", "TokenReview", "spec", Map.of("token", token)));
            HttpRequest request = HttpRequest.newBuilder(
                            config.apiServer().resolve("/apis/authentication.k8s.io/v1/tokenreviews"))
                    .timeout(Duration.ofSeconds(5))
                    .header("Authorization", "Bearer " + Files.readString(dir.resolve("token")).strip())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            HttpResponse<String> response = client(dir).send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 201 && response.statusCode() != 200) {
                LOG.warnf("TokenReview answered %d: the token is refused", response.statusCode());
                return Optional.empty();
            }
            JsonNode status = JSON.readTree(response.body()).path("status");
            return status.path("authenticated").asBoolean(false)
                    ? Optional.of(status.path("user").path("username").asText()).filter(name -> !name.isEmpty())
                    : Optional.empty();
        } catch (IOException e) {
            LOG.warnf("TokenReview failed (%s): the token is refused", e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private HttpClient client(Path dir) throws IOException {
        if (http == null) {
            HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
            Path ca = dir.resolve("ca.crt");
            if (Files.exists(ca)) {
                builder.sslContext(trusting(ca));
            }
            http = builder.build();
        }
        return http;
    }

    private static SSLContext trusting(Path ca) throws IOException {
        try (InputStream in = Files.newInputStream(ca)) {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                store.setCertificateEntry("ca-" + i++, certificate);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("the API server's CA " + ca + " is not usable: " + e.getMessage(), e);
        }
    }
}
