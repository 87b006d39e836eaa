package io.granary.block.events;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.ScheduledExecution;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;

/**
 * Skips a scheduled send until the application has started: before then the Kafka emitters are not connected, and
 * a send fails ("Unable to connect an emitter"). A fixed delay was too short for a worker restarted on a busy node
 * (22 s to start under bench/chaos.sh's load), which logged an error per run.
 */
@Singleton
class NotStartedYet implements Scheduled.SkipPredicate {

    private volatile boolean started;

    void started(@Observes StartupEvent event) {
        started = true;
    }

    @Override
    public boolean test(ScheduledExecution execution) {
        return !started;
    }
}
