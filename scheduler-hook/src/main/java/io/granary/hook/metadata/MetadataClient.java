package io.granary.hook.metadata;

import io.granary.contracts.dataset.NodeCache;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** The metadata-service, as the webhook needs it: how much of a dataset each node caches. */
@RegisterRestClient(configKey = "metadata")
@Path("/api/v1")
public interface MetadataClient {

    /** Fails with a 404 {@code WebApplicationException} when the dataset does not exist. */
    @GET
    @Path("datasets/{name}/nodes")
    CompletionStage<List<NodeCache>> nodes(@PathParam("name") String name);
}
