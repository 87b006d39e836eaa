package io.granary.hook.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * What the webhook did with each pod: {@code granary_hook_admissions_total{outcome}} (mutated, reinvoked, unchanged, fail-open) and, for the pods admitted
 * unchanged because the metadata-service did not answer in time, {@code granary_hook_fail_open_total{reason}}.
 */
@ApplicationScoped
public class HookMetrics {

    public enum Outcome { MUTATED, REINVOKED, UNCHANGED, FAIL_OPEN }

    private final MeterRegistry registry;
    private final Timer lookups;

    HookMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.lookups = Timer.builder("granary.hook.cache.lookup")
                .description("Time to learn from the metadata-service where a pod's datasets are cached")
                .register(registry);
    }

    public void admitted(Outcome outcome) {
        registry.counter("granary.hook.admissions", "outcome", outcome.name().toLowerCase().replace('_', '-'))
                .increment();
    }

    /** @param reason {@code timeout} (past the deadline) or {@code error} (the metadata-service failed) */
    public void failedOpen(String reason) {
        admitted(Outcome.FAIL_OPEN);
        registry.counter("granary.hook.fail.open", "reason", reason).increment();
    }

    public Timer lookups() {
        return lookups;
    }
}
