package io.granary.kit.client;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockLoadRequest;
import io.granary.contracts.block.BlockLoadResult;
import io.granary.contracts.worker.DrainStatus;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A cache worker's management calls ({@code contracts} {@code BlockApi}), as other services make them; one client
 * per worker address ({@link Workers}). Errors are thrown as {@code WebApplicationException}.
 */
@Path("/")
public interface WorkerApi {

    /** Makes the worker hold these blocks: the preload-service's loads, a draining worker's hand-overs. */
    @POST
    @Path(BlockApi.ROOT + "/load")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    BlockLoadResult load(BlockLoadRequest request);

    /** Starts the worker's drain; answers where it is. */
    @POST
    @Path(BlockApi.DRAIN)
    @Produces(MediaType.APPLICATION_JSON)
    DrainStatus drain();

    /** Makes the worker an owner of blocks again. */
    @DELETE
    @Path(BlockApi.DRAIN)
    void rejoin();
}
