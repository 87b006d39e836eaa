package io.granary.preload.plan;

import io.granary.contracts.events.Topics;
import io.granary.contracts.plan.EpochPlan;
import io.granary.kit.events.KafkaEvents;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Epoch plans from training jobs (and from {@code POST /api/v1/plans}). A plan that does not parse or validate, names
 * an unknown dataset or a file not in it goes to {@code granary.deadletter} with the reason ({@link KafkaEvents});
 * the next plan is read as usual.
 */
@ApplicationScoped
public class EpochPlanConsumer {

    private final KafkaEvents events;
    private final EpochPlans plans;

    EpochPlanConsumer(KafkaEvents events, EpochPlans plans) {
        this.events = events;
        this.plans = plans;
    }

    @Incoming(Topics.EPOCH_PLANS)
    @Blocking
    public void onPlan(String message) {
        events.consume(Topics.EPOCH_PLANS, message, EpochPlan.class, plans::start);
    }
}
