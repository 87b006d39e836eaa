package io.granary.gateway.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the gateway measures: S3 requests by operation and status, bytes served by where they came from
 * ({@code shortcircuit}: a block file on this node, {@code worker}: a cache worker over HTTP, {@code understore}:
 * read around the cache), time to first byte, fallbacks to the under-store by reason, bytes written through into the
 * cache, and the gateway's share of a cold read ({@code granary_gateway_cold_stage_seconds}: {@code metadata}, a
 * file's stat the near cache did not have; {@code fill}, a worker on this node asked to fill a block, until it
 * answered). Every meter whose labels are known in advance is registered at zero when the gateway starts, so a
 * reader of the metrics tells "none yet" from "not counted".
 */
@Startup
@ApplicationScoped
public class GatewayMetrics {

    public static final String SHORT_CIRCUIT = "shortcircuit";
    public static final String WORKER = "worker";
    public static final String UNDER_STORE = "understore";

    /** Stages of a cold read as the gateway sees them. */
    public static final String METADATA = "metadata";
    public static final String FILL = "fill";

    /** Why a block was read around the cache: no worker owns it now. */
    public static final String NO_LIVE_WORKER = "no-live-worker";
    /** Every owner failed before sending a byte. */
    public static final String OWNERS_FAILED = "owners-failed";
    /** The owner failed part-way: the rest came from the under-store. */
    public static final String OWNER_FAILED = "owner-failed";
    /** The owner refused the request (a 4xx): asking another would not help. */
    public static final String OWNER_REFUSED = "owner-refused";

    /** What became of a block written through into the cache. */
    public static final String STORED = "stored";
    /** Read back from the under-store by the owners: an upload whose parts went through other gateways too. */
    public static final String FILLED = "filled";
    public static final String FAILED = "failed";

    private final MeterRegistry registry;
    // Every S3 request counts in these: each meter is looked up once, not built and found again per request.
    private final Map<String, Counter> requests = new ConcurrentHashMap<>();
    private final Map<String, Counter> served = new ConcurrentHashMap<>();
    private final Map<String, Timer> firstByte = new ConcurrentHashMap<>();
    private final Map<String, Timer> coldStages = new ConcurrentHashMap<>();
    private final Map<String, Counter> fallbacks = new ConcurrentHashMap<>();
    private final Map<String, Counter> written = new ConcurrentHashMap<>();

    GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (String source : List.of(SHORT_CIRCUIT, WORKER, UNDER_STORE)) {
            served.put(source, Counter.builder("granary.gateway.served").baseUnit(BaseUnits.BYTES)
                    .tag("source", source).description("bytes sent to S3 clients, by where they came from")
                    .register(registry));
        }
        for (String stage : List.of(METADATA, FILL)) {
            coldStages.put(stage, Timer.builder("granary.gateway.cold.stage").tag("stage", stage)
                    .description("the gateway's time in each stage of a cold read").register(registry));
        }
        for (String reason : List.of(NO_LIVE_WORKER, OWNERS_FAILED, OWNER_FAILED, OWNER_REFUSED)) {
            fallbacks.put(reason, registry.counter("granary.gateway.fallbacks", "reason", reason));
        }
        for (String outcome : List.of(STORED, FILLED, FAILED)) {
            written.put(outcome, Counter.builder("granary.gateway.cache.written").baseUnit(BaseUnits.BYTES)
                    .tag("outcome", outcome).description("bytes of uploads written through into the cache")
                    .register(registry));
        }
    }

    public void request(String operation, int status) {
        requests.computeIfAbsent(operation + ' ' + status, key -> registry.counter("granary.gateway.requests",
                "operation", operation, "status", Integer.toString(status))).increment();
    }

    /** @param source {@link #SHORT_CIRCUIT}, {@link #WORKER} or {@link #UNDER_STORE} */
    public void served(String source, long bytes) {
        served.get(source).increment(bytes);
    }

    public void firstByte(String operation, Duration elapsed) {
        firstByte.computeIfAbsent(operation, key -> Timer.builder("granary.gateway.time.to.first.byte")
                .tag("operation", operation).publishPercentileHistogram(false).register(registry)).record(elapsed);
    }

    /** @param stage {@link #METADATA} or {@link #FILL} */
    public void coldStage(String stage, long nanos) {
        coldStages.get(stage).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** @param reason one of {@link #NO_LIVE_WORKER}, {@link #OWNERS_FAILED}, {@link #OWNER_FAILED}, {@link #OWNER_REFUSED} */
    public void fallback(String reason) {
        fallbacks.get(reason).increment();
    }

    /** @param outcome {@link #STORED}, {@link #FILLED} or {@link #FAILED} */
    public void writeThrough(String outcome, long bytes) {
        written.get(outcome).increment(bytes);
    }
}
