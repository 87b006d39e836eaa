package io.granary.preload.client;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.worker.Worker;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.List;

/** The metadata-service: datasets, their file listings (from its cache), and the live workers. */
@RegisterRestClient(configKey = "metadata")
@Path("/api/v1")
public interface MetadataClient {

    @GET
    @Path("datasets/{name}")
    Dataset dataset(@PathParam("name") String name);

    @GET
    @Path("datasets/{name}/files")
    FileListing files(@PathParam("name") String name, @QueryParam("prefix") String prefix,
                      @QueryParam("cursor") String cursor, @QueryParam("limit") int limit);

    @GET
    @Path("datasets/{name}/files/{path: .+}")
    FileInfo stat(@PathParam("name") String name, @PathParam("path") String path);

    @POST
    @Path("datasets/{name}/sync")
    void sync(@PathParam("name") String name);

    @GET
    @Path("workers")
    List<Worker> workers();
}
