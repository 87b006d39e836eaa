package io.granary.operator.granary;

import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Worker;
import io.granary.kit.security.ClusterHeaders;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.annotation.RegisterClientHeaders;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.List;

/** The workers as the metadata-service knows them, and their drains; blocking, with the cluster credential. */
@RegisterRestClient(configKey = "metadata")
@RegisterClientHeaders(ClusterHeaders.class)
@Path(MetadataApi.WORKERS)
public interface WorkerClient {

    @GET
    List<Worker> workers();

    /** The worker hands its blocks to their next owners, then drops them; the same call again is its status. */
    @POST
    @Path("{id}/drain")
    DrainStatus drain(@PathParam("id") String id);

    /** The worker owns blocks again; a drain under way stops. */
    @DELETE
    @Path("{id}/drain")
    void rejoin(@PathParam("id") String id);
}
