package io.granary.metadata.rest;

import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.WorkerCallFailed;
import io.granary.kit.rest.NotFoundProblem;
import io.granary.kit.rest.ProblemMappers;
import io.granary.metadata.service.Membership;
import io.vertx.core.Future;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The cache workers: levels, capacity, use, last heartbeat, whether they are live or leaving; and asking one to leave
 * without losing its cache (a drain, which the worker runs and its heartbeats report) or to rejoin.
 */
@Path(MetadataApi.WORKERS)
@Produces(MediaType.APPLICATION_JSON)
public class WorkerResource {

    private final Membership membership;
    private final BlockClient blocks;

    WorkerResource(Membership membership, BlockClient blocks) {
        this.membership = membership;
        this.blocks = blocks;
    }

    @GET
    public List<Worker> workers() {
        return membership.workers();
    }

    /** 202 with the drain's status: the worker hands its blocks to their next owners, then drops them. */
    @POST
    @Path("{id}/drain")
    public CompletionStage<Response> drain(@PathParam("id") String id) {
        Worker worker = live(id);
        return forward(worker, blocks.drain(worker).map(status -> Response.accepted(status).build()));
    }

    /** 204: the worker is an owner again (a drain under way stops). */
    @DELETE
    @Path("{id}/drain")
    public CompletionStage<Response> rejoin(@PathParam("id") String id) {
        Worker worker = live(id);
        return forward(worker, blocks.rejoin(worker).map(done -> Response.noContent().build()));
    }

    private Worker live(String id) {
        return membership.workers().stream().filter(worker -> worker.id().equals(id) && worker.live()).findFirst()
                .orElseThrow(() -> new NotFoundProblem("id", "no live worker '" + id + "'"));
    }

    /** The worker's refusal as it gave it; 502 when it cannot be reached. */
    private static CompletionStage<Response> forward(Worker worker, Future<Response> call) {
        return call.otherwise(failure -> failure instanceof WorkerCallFailed refused && refused.status() > 0
                ? Response.status(refused.status()).type(Problem.MEDIA_TYPE).entity(refused.body()).build()
                : ProblemMappers.problem(Problem.of(502, "Bad Gateway", "worker " + worker.id()
                        + " cannot be reached", "id"))).toCompletionStage();
    }
}
