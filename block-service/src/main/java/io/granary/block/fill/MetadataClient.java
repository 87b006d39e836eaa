package io.granary.block.fill;

import io.granary.contracts.dataset.Dataset;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/** The metadata-service, the system of record for datasets ({@code quarkus.rest-client.metadata.url}). */
@RegisterRestClient(configKey = "metadata")
@Path("/api/v1/datasets")
public interface MetadataClient {

    @GET
    @Path("{name}")
    Dataset dataset(@PathParam("name") String name);
}
