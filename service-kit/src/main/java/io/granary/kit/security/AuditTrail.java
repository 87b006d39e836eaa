package io.granary.kit.security;

import io.granary.contracts.events.AuditEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.jboss.logging.Logger;

import java.time.Clock;

/**
 * Every management change on {@code granary.audit}, keyed by who made it, and counted
 * ({@code granary_audit_events_total} by action and outcome). Recorded by the service that answers the call, so a
 * change made through the gateway is recorded once, for the caller it was made for.
 */
@ApplicationScoped
public class AuditTrail {

    private static final Logger LOG = Logger.getLogger(AuditTrail.class);

    private final Emitter<String> emitter;
    private final KafkaEvents events;
    private final MeterRegistry metrics;
    private final String service;
    private final Clock clock = Clock.systemUTC();

    AuditTrail(@Channel(Topics.AUDIT) Emitter<String> emitter, KafkaEvents events, MeterRegistry metrics,
               @ConfigProperty(name = "quarkus.application.name") String service) {
        this.emitter = emitter;
        this.events = events;
        this.metrics = metrics;
        this.service = service;
    }

    /** @param status the HTTP status the caller got; 403 is recorded as denied */
    public void record(String who, String action, String target, int status) {
        String outcome = status / 100 == 2 ? "done" : status == 403 ? "denied" : "failed";
        metrics.counter("granary.audit.events", "action", action, "outcome", outcome).increment();
        AuditEvent event = new AuditEvent(who, action, target, outcome, status, service, clock.instant());
        try {
            events.send(emitter, Topics.AUDIT, who, event).exceptionally(failure -> {
                LOG.errorf("audit record not sent (%s): %s", failure.getMessage(), event);
                return null;
            });
        } catch (RuntimeException e) {  // the emitter's buffer is full: the broker has been away a while
            LOG.errorf("audit record not sent (%s): %s", e.getMessage(), event);
        }
    }
}
