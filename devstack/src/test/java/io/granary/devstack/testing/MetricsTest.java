package io.granary.devstack.testing;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Series read off a real HTTP server exposing Prometheus text, as a service's {@code /q/metrics} does. */
class MetricsTest {

    private static final String EXPOSITION = """
            # HELP granary_block_fetched_bytes_total bytes fetched
            # TYPE granary_block_fetched_bytes_total counter
            granary_block_fetched_bytes_total{source="peer"} 10.0
            granary_block_fetched_bytes_total{source="understore"} 32.0
            granary_gateway_fallbacks_total{reason="no-live-worker"} 0.0
            granary_gateway_fallbacks_total{reason="owner-failed"} 2.0
            granary_block_corrupt_total 0.0
            granary_block_corrupt_total_extra 5.0
            """;

    private HttpServer server;
    private URI service;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/q/metrics", exchange -> {
            byte[] body = EXPOSITION.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        service = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void aNameSumsEveryLabelSetAndASelectorOnlyItsOwn() {
        assertThat(Metrics.sum("granary_block_fetched_bytes_total", service)).isEqualTo(42.0);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, service)).isEqualTo(32.0);
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_PEERS, List.of(service, service))).isEqualTo(20.0);
        assertThat(Metrics.sum("granary_gateway_fallbacks_total", service)).isEqualTo(2.0);
        assertThat(Metrics.sum("granary_block_corrupt_total", service)).as("not its longer namesake").isZero();
    }

    @Test
    void aSeriesTheServiceDoesNotExposeFailsInsteadOfReadingZero() {
        assertThatThrownBy(() -> Metrics.sum("granary_gateway_fallback_total", service))
                .isInstanceOf(AssertionError.class).hasMessageContaining("exposes no series");
        assertThatThrownBy(() -> Metrics.sum("granary_block_fetched_bytes_total{source=\"disk\"}", service))
                .isInstanceOf(AssertionError.class);
    }
}
