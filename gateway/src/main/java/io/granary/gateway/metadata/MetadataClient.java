package io.granary.gateway.metadata;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.worker.Worker;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.List;

/** The metadata-service, as the S3 API needs it: datasets, files, listings, live workers. */
@RegisterRestClient(configKey = "metadata")
@Path("/api/v1")
public interface MetadataClient {

    @GET
    @Path("datasets")
    List<Dataset> datasets();

    @GET
    @Path("datasets/{name}")
    Dataset dataset(@PathParam("name") String name);

    @GET
    @Path("datasets/{name}/files")
    FileListing files(@PathParam("name") String name, @QueryParam("prefix") String prefix,
                      @QueryParam("delimiter") String delimiter, @QueryParam("cursor") String cursor,
                      @QueryParam("limit") int limit);

    @GET
    @Path("datasets/{name}/files/{path: .+}")
    FileInfo stat(@PathParam("name") String name, @PathParam("path") String path);

    /** After a write or delete: the metadata-service re-reads the file from the under-store. */
    @POST
    @Path("datasets/{name}/files/{path: .+}/refresh")
    @Consumes(MediaType.WILDCARD)
    FileInfo refresh(@PathParam("name") String name, @PathParam("path") String path);

    @GET
    @Path("workers")
    List<Worker> workers();
}
