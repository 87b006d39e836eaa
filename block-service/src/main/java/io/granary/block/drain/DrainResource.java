package io.granary.block.drain;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.worker.DrainStatus;
import io.granary.kit.rest.NotFoundProblem;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** {@code /worker/drain}: leave without losing the cache (POST), where it is (GET), or rejoin (DELETE). */
@Path(BlockApi.DRAIN)
@Produces(MediaType.APPLICATION_JSON)
public class DrainResource {

    private final WorkerDrain drain;

    DrainResource(WorkerDrain drain) {
        this.drain = drain;
    }

    @POST
    public Response start() {
        return Response.accepted(drain.start()).build();
    }

    @GET
    public DrainStatus status() {
        DrainStatus status = drain.status();
        if (status == null) {
            throw new NotFoundProblem("worker", "this worker is not draining");
        }
        return status;
    }

    @DELETE
    public Response rejoin() {
        drain.rejoin();
        return Response.noContent().build();
    }
}
