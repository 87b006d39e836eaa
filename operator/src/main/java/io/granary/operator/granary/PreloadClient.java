package io.granary.operator.granary;

import io.granary.contracts.dataload.DataLoadApi;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.kit.security.ClusterHeaders;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.annotation.RegisterClientHeaders;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

/**
 * The preload-service's DataLoads, called with the cluster credential ({@code quarkus.rest-client.preload.url}).
 * Every method blocks and throws a {@code WebApplicationException} for an error status.
 */
@RegisterRestClient(configKey = "preload")
@RegisterClientHeaders(ClusterHeaders.class)
@Path(DataLoadApi.DATALOADS)
public interface PreloadClient {

    /** Starts a load; the same key again answers the load it started, so a reconcile may repeat it safely. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    Started start(@HeaderParam(DataLoadApi.IDEMPOTENCY_HEADER) String key, DataLoadSpec spec);

    @GET
    @Path(DataLoadApi.DATALOAD)
    DataLoadStatus status(@PathParam("id") String id);

    @DELETE
    @Path(DataLoadApi.DATALOAD)
    DataLoadStatus cancel(@PathParam("id") String id);

    record Started(String id, DataLoadStatus status) {
    }
}
