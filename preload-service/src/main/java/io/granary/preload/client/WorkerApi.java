package io.granary.preload.client;

import io.granary.contracts.block.BlockLoadRequest;
import io.granary.contracts.block.BlockLoadResult;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** A cache worker's batch load ({@code contracts} {@code BlockApi}); one client per worker address. */
@Path("/blocks")
public interface WorkerApi {

    @POST
    @Path("load")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    BlockLoadResult load(BlockLoadRequest request);
}
