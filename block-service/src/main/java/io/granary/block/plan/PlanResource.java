package io.granary.block.plan;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.plan.PlanProgress;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.NotFoundProblem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code /worker/plans/{id}}: this worker's part of an epoch plan (PUT), how far its reader got (GET), its end. */
@Path(BlockApi.PLANS + "/{id}")
@Produces(MediaType.APPLICATION_JSON)
public class PlanResource {

    private final WorkerPlans plans;

    PlanResource(WorkerPlans plans) {
        this.plans = plans;
    }

    @PUT
    @Consumes(MediaType.APPLICATION_JSON)
    public Response put(@PathParam("id") String id, WorkerPlan plan) {
        if (plan == null || plan.dataset() == null) {
            throw new ValidationException("dataset", "a plan part names its dataset");
        }
        plans.put(id, plan);
        return Response.noContent().build();
    }

    @GET
    public PlanProgress progress(@PathParam("id") String id) {
        return plans.progress(id).orElseThrow(() -> new NotFoundProblem("plan", "no part of plan '" + id + "' here"));
    }

    @DELETE
    public Response end(@PathParam("id") String id) {
        plans.remove(id);
        return Response.noContent().build();
    }
}
