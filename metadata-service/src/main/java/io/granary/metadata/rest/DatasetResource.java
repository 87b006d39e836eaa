package io.granary.metadata.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.NotFoundProblem;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.granary.metadata.service.CacheStatistics;
import io.granary.metadata.service.CachedFiles;
import io.granary.metadata.service.DatasetService;
import io.granary.metadata.store.FileTree;
import io.micrometer.core.annotation.Timed;
import io.smallrye.common.annotation.Blocking;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Datasets and their metadata, all answered from the replicated metadata cache. */
@Path(MetadataApi.DATASETS)
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
public class DatasetResource {

    private final DatasetService datasets;
    private final FileTree files;
    private final CacheStatistics statistics;
    private final CachedFiles cachedFiles;
    private final ObjectMapper json;

    DatasetResource(DatasetService datasets, FileTree files, CacheStatistics statistics, CachedFiles cachedFiles,
                    ObjectMapper json) {
        this.json = json;
        this.cachedFiles = cachedFiles;
        this.datasets = datasets;
        this.files = files;
        this.statistics = statistics;
    }

    /** Reads the body itself so that a wrongly typed field comes back named (Quarkus's reader loses the path). */
    @POST
    public Response create(@RequestBody(content = @Content(schema = @Schema(implementation = DatasetSpec.class)))
                           String body, @Context UriInfo uri, RoutingContext ctx) throws JsonProcessingException {
        DatasetSpec spec = body == null || body.isBlank() ? null : json.readValue(body, DatasetSpec.class);
        if (spec == null) {
            throw new ValidationException("body", "a dataset spec is required");
        }
        Dataset dataset = datasets.create(spec, AccessFilter.caller(ctx));
        return Response.created(uri.getAbsolutePathBuilder().path(dataset.name()).build()).entity(dataset).build();
    }

    @GET
    public List<Dataset> list(RoutingContext ctx) {
        Caller caller = AccessFilter.caller(ctx);
        return datasets.list().stream().filter(dataset -> caller.mayTouch(dataset.name())).toList();
    }

    @GET
    @Path(MetadataApi.DATASET)
    public Dataset get(@PathParam("name") String name) {
        return datasets.get(name);
    }

    /** Replaces what S3 keeps about the dataset as a bucket (its ACL, CORS rules, public access block). */
    @PUT
    @Path(MetadataApi.BUCKET)
    public Dataset updateBucket(@PathParam("name") String name,
                                @RequestBody(content = @Content(schema = @Schema(implementation = BucketSettings.class)))
                                String body) throws JsonProcessingException {
        BucketSettings settings = body == null || body.isBlank() ? null : json.readValue(body, BucketSettings.class);
        if (settings == null) {
            throw new ValidationException("body", "bucket settings are required");
        }
        return datasets.updateBucket(name, settings);
    }

    @DELETE
    @Path(MetadataApi.DATASET)
    public Response delete(@PathParam("name") String name) {
        datasets.delete(name);
        return Response.noContent().build();
    }

    /**
     * Frees the cache of the file or directory {@code path} (the whole dataset without one) on every worker: 202 once
     * the request is on Kafka; the dataset's {@code cachedBytes} fall as the workers drop their blocks.
     */
    @DELETE
    @Path(MetadataApi.CACHE)
    public CompletionStage<Response> freeCache(@PathParam("name") String name, @QueryParam("path") String path) {
        String normalised = DatasetPaths.normalize("path", path);
        return datasets.freeCache(name, normalised).thenApply(freeing -> Response.accepted(freeing).build());
    }

    @POST
    @Path(MetadataApi.SYNC)
    public Response sync(@PathParam("name") String name) {
        return Response.accepted(datasets.sync(name)).build();
    }

    @GET
    @Path(MetadataApi.FILES)
    @Timed(value = "granary.metadata.listing", description = "Listing a dataset's files from the metadata cache")
    @Blocking  // the listing reads the metadata cache; asking the workers is what is asynchronous
    @APIResponse(responseCode = "200", content = @Content(schema = @Schema(implementation = FileListing.class)))
    public CompletionStage<Response> files(@PathParam("name") String name, @QueryParam("prefix") String prefix,
                                           @QueryParam("delimiter") String delimiter,
                                           @QueryParam("cursor") String cursor,
                                           @QueryParam("limit") @DefaultValue("1000") int limit,
                                           @QueryParam("cached") boolean cached) throws JsonProcessingException {
        DatasetSpec spec = datasets.spec(name);
        if (limit < 1 || limit > FileTree.MAX_PAGE) {
            throw new ValidationException("limit", "must be between 1 and " + FileTree.MAX_PAGE + ", not " + limit);
        }
        String from = DatasetPaths.normalize("prefix", prefix);
        if (cached) {
            FileListing page = files.list(name, from, delimiter, cursor, limit);
            return cachedFiles.of(spec, page.files())
                    .thenApply(bytes -> Response.ok(page.withCachedBytes(bytes)).build());
        }
        // The files go out as the JSON they are stored as: a page of a thousand is not parsed and written again.
        FileTree.Page<String> page = files.listJson(name, from, delimiter, cursor, limit);
        StringBuilder body = new StringBuilder(page.files().size() * 160 + 64).append("{\"files\":[");
        body.append(String.join(",", page.files())).append("],\"prefixes\":")
                .append(json.writeValueAsString(page.prefixes())).append(",\"nextCursor\":")
                .append(json.writeValueAsString(page.nextCursor())).append('}');
        return CompletableFuture.completedFuture(Response.ok(body.toString(), MediaType.APPLICATION_JSON).build());
    }

    @GET
    @Path(MetadataApi.FILE)
    public FileInfo stat(@PathParam("name") String name, @PathParam("path") String path) {
        datasets.require(name);
        String normalised = DatasetPaths.normalize("path", path);
        return files.stat(name, normalised).orElseThrow(() ->
                new NotFoundProblem("path", "no file '" + normalised + "' in dataset '" + name + "'"));
    }

    /**
     * The gateway wrote or deleted this file in the under-store: re-read it there. 200 with the file as it is now,
     * 404 when it is gone.
     */
    @POST
    @Path(MetadataApi.REFRESH)
    @Consumes(MediaType.WILDCARD)  // no body
    public FileInfo refresh(@PathParam("name") String name, @PathParam("path") String path) {
        String normalised = DatasetPaths.normalize("path", path);
        return datasets.refresh(name, normalised).orElseThrow(() ->
                new NotFoundProblem("path", "no file '" + normalised + "' in dataset '" + name + "'"));
    }

    @GET
    @Path(MetadataApi.NODES)
    public List<NodeCache> nodes(@PathParam("name") String name) {
        datasets.require(name);
        return statistics.nodes(name);
    }
}
