package io.granary.metadata.rest;

import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.Workers;
import io.granary.kit.rest.NotFoundException;
import io.granary.kit.rest.ProblemMappers;
import io.granary.metadata.service.Membership;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.function.Function;

/**
 * The cache workers: tiers, capacity, use, last heartbeat, whether they are live or leaving; and asking one to leave
 * without losing its cache (a drain, which the worker runs and its heartbeats report) or to rejoin.
 */
@Path(MetadataApi.WORKERS)
@Produces(MediaType.APPLICATION_JSON)
public class WorkerResource {

    private final Membership membership;
    private final Workers workers;

    WorkerResource(Membership membership, Workers workers) {
        this.membership = membership;
        this.workers = workers;
    }

    @GET
    public List<Worker> workers() {
        return membership.workers();
    }

    /** 202 with the drain's status: the worker hands its blocks to their next owners, then drops them. */
    @POST
    @Path("{id}/drain")
    public Response drain(@PathParam("id") String id) {
        return forward(live(id), worker -> Response.accepted(workers.at(worker.address()).drain()).build());
    }

    /** 204: the worker is an owner again (a drain under way stops). */
    @DELETE
    @Path("{id}/drain")
    public Response rejoin(@PathParam("id") String id) {
        return forward(live(id), worker -> {
            workers.at(worker.address()).rejoin();
            return Response.noContent().build();
        });
    }

    private Worker live(String id) {
        return membership.workers().stream().filter(worker -> worker.id().equals(id) && worker.live()).findFirst()
                .orElseThrow(() -> new NotFoundException("id", "no live worker '" + id + "'"));
    }

    /** The worker's refusal as it gave it; 502 when it cannot be reached. */
    private static Response forward(Worker worker, Function<Worker, Response> call) {
        try {
            return call.apply(worker);
        } catch (WebApplicationException e) {
            return Response.fromResponse(e.getResponse()).build();
        } catch (RuntimeException e) {
            return ProblemMappers.problem(Problem.of(502, "Bad Gateway", "worker " + worker.id() + " cannot be reached",
                    "id"));
        }
    }
}
