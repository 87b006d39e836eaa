package io.granary.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the gateway measures: S3 requests by operation and status, bytes served by where they came from
 * ({@code shortcircuit}: a block file on this node, {@code worker}: a cache worker over HTTP, {@code understore}:
 * read around the cache), time to first byte, fallbacks to the under-store by reason, and the gateway's share of a
 * cold read ({@code granary_gateway_cold_stage_seconds}: {@code metadata}, a file's stat the near cache did not
 * have; {@code fill}, a worker on this node asked to fill a block, until it answered).
 */
@ApplicationScoped
public class GatewayMetrics {

    public static final String SHORT_CIRCUIT = "shortcircuit";
    public static final String WORKER = "worker";
    public static final String UNDER_STORE = "understore";

    private final MeterRegistry registry;
    // Every S3 request counts in these: each meter is looked up once, not built and found again per request.
    private final Map<String, Counter> requests = new ConcurrentHashMap<>();
    private final Map<String, Counter> served = new ConcurrentHashMap<>();
    private final Map<String, Timer> firstByte = new ConcurrentHashMap<>();

    GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void request(String operation, int status) {
        requests.computeIfAbsent(operation + ' ' + status, key -> registry.counter("granary.gateway.requests",
                "operation", operation, "status", Integer.toString(status))).increment();
    }

    public void served(String source, long bytes) {
        served.computeIfAbsent(source, key -> registry.counter("granary.gateway.bytes.served", "source", source))
                .increment(bytes);
    }

    public void firstByte(String operation, Duration elapsed) {
        firstByte.computeIfAbsent(operation, key -> Timer.builder("granary.gateway.time.to.first.byte")
                .tag("operation", operation).publishPercentileHistogram(false).register(registry)).record(elapsed);
    }

    /** Stages of a cold read as the gateway sees them. */
    public static final String METADATA = "metadata";
    public static final String FILL = "fill";

    public void coldStage(String stage, long nanos) {
        Timer.builder("granary.gateway.cold.stage").tag("stage", stage)
                .description("the gateway's time in each stage of a cold read").register(registry)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    public void fallback(String reason) {
        registry.counter("granary.gateway.fallbacks", "reason", reason).increment();
    }

    public void writeThrough(String outcome, long bytes) {
        registry.counter("granary.gateway.cache.written", "outcome", outcome).increment(bytes);
    }
}
