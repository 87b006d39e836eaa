package io.granary.preload.plan;

import io.granary.contracts.events.Topics;
import io.granary.contracts.plan.EpochPlan;
import io.granary.contracts.plan.PlanApi;
import io.granary.contracts.plan.PlanStatus;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.events.KafkaEvents;
import io.granary.kit.rest.NotFoundProblem;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Epoch plans over REST: a plan is checked (400 naming the field), then published on {@code granary.epoch.plans},
 * where the consumer starts it, as one a job sent to Kafka itself. Status and end by id.
 */
@Path(PlanApi.PLANS)
@Produces(MediaType.APPLICATION_JSON)
public class EpochPlanResource {

    private static final long PUBLISH_WAIT_SECONDS = 10;
    /** The channel plans are published on: apart from the consumer's, so they go through Kafka (application.properties). */
    static final String OUT = "epoch-plans-out";

    private final EpochPlans plans;
    private final Emitter<String> emitter;
    private final KafkaEvents events;

    EpochPlanResource(EpochPlans plans, @Channel(OUT) Emitter<String> emitter, KafkaEvents events) {
        this.plans = plans;
        this.emitter = emitter;
        this.events = events;
    }

    /**
     * 202 once Kafka has the plan; 400 naming the field for a bad plan, an unknown dataset or a file not in it; 413
     * for a plan larger than the topic takes; 503 when Kafka does not answer.
     */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response publish(EpochPlan plan, RoutingContext ctx) throws InterruptedException {
        if (plan == null) {
            throw new ValidationException("body", "an epoch plan is required");
        }
        AccessFilter.caller(ctx).checkMayTouch(plan.dataset());
        EpochPlan valid = plan.validate();
        plans.check(valid);
        try {
            events.send(emitter, Topics.EPOCH_PLANS, valid.id(), valid).toCompletableFuture()
                    .get(PUBLISH_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (tooLarge(e)) {  // no retry takes it
                return Response.status(413).type(Problem.MEDIA_TYPE).entity(Problem.of(413, "Content Too Large",
                        "a plan of " + valid.files().size() + " files is more than Kafka takes on "
                                + Topics.EPOCH_PLANS + " (its max.message.bytes): raise it, or plan fewer files a rank",
                        "files")).build();
            }
            return unavailable(e);
        } catch (TimeoutException e) {
            return unavailable(e);
        }
        return Response.accepted(Map.of("id", valid.id(), "dataset", valid.dataset(), "epoch", valid.epoch())).build();
    }

    private static boolean tooLarge(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RecordTooLargeException) {
                return true;
            }
        }
        return false;
    }

    private static Response unavailable(Exception e) {
        return Response.status(503).type(Problem.MEDIA_TYPE).entity(Problem.of(503, "Service Unavailable",
                "Kafka did not take the plan: " + e.getMessage(), null)).build();
    }

    @GET
    public List<PlanStatus> list(RoutingContext ctx) {
        Caller caller = AccessFilter.caller(ctx);
        return plans.list().stream().filter(plan -> caller.mayTouch(plan.dataset())).toList();
    }

    @GET
    @Path(PlanApi.PLAN)
    public PlanStatus get(@PathParam("id") String id, RoutingContext ctx) {
        return allowed(ctx, plans.get(id));
    }

    @DELETE
    @Path(PlanApi.PLAN)
    public PlanStatus end(@PathParam("id") String id, RoutingContext ctx) {
        allowed(ctx, plans.get(id));
        return plans.end(id);
    }

    /** A plan of a dataset the caller may not touch looks like none at all. */
    private static PlanStatus allowed(RoutingContext ctx, PlanStatus plan) {
        if (!AccessFilter.caller(ctx).mayTouch(plan.dataset())) {
            throw new NotFoundProblem("id", "no epoch plan '" + plan.id() + "'");
        }
        return plan;
    }
}
