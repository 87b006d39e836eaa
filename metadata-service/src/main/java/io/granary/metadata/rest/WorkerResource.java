package io.granary.metadata.rest;

import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.worker.Worker;
import io.granary.contracts.validation.Problem;
import io.granary.kit.rest.NotFoundException;
import io.granary.kit.rest.ProblemMappers;
import io.granary.kit.security.ClusterCredential;
import io.granary.metadata.service.Membership;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The cache workers: tiers, capacity, use, last heartbeat, whether they are live or leaving; and asking one to leave
 * without losing its cache (a drain, which the worker runs and its heartbeats report) or to rejoin.
 */
@Path(MetadataApi.WORKERS)
@Produces(MediaType.APPLICATION_JSON)
public class WorkerResource {

    /** The worker's own drain resource. */
    private static final String DRAIN = "/worker/drain";

    private final Membership membership;
    private final String authorization;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    WorkerResource(Membership membership, ClusterCredential cluster) {
        this.membership = membership;
        this.authorization = cluster.authorization();
    }

    @GET
    public List<Worker> workers() {
        return membership.workers();
    }

    /** 202 with the drain's status: the worker hands its blocks to their next owners, then drops them. */
    @POST
    @Path("{id}/drain")
    public Response drain(@PathParam("id") String id) {
        return forward(live(id), "POST");
    }

    /** 204: the worker is an owner again (a drain under way stops). */
    @DELETE
    @Path("{id}/drain")
    public Response rejoin(@PathParam("id") String id) {
        return forward(live(id), "DELETE");
    }

    private Worker live(String id) {
        return membership.workers().stream().filter(worker -> worker.id().equals(id) && worker.live()).findFirst()
                .orElseThrow(() -> new NotFoundException("id", "no live worker '" + id + "'"));
    }

    /** The worker's answer as it gave it; 502 when it cannot be reached. */
    private Response forward(Worker worker, String method) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(worker.address() + DRAIN))
                .header("Authorization", authorization).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            return answer.body().isEmpty() ? Response.status(answer.statusCode()).build()
                    : Response.status(answer.statusCode()).type(MediaType.APPLICATION_JSON).entity(answer.body()).build();
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return ProblemMappers.problem(Problem.of(502, "Bad Gateway", "worker " + worker.id() + " cannot be reached",
                    "id"));
        }
    }
}
