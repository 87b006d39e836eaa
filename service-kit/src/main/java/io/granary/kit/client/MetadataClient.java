package io.granary.kit.client;

import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.worker.Worker;
import io.granary.kit.security.ClusterCredential;
import io.granary.kit.security.ClusterHeaders;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.rest.client.annotation.RegisterClientHeaders;
import org.eclipse.microprofile.rest.client.inject.RegisterRestClient;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The metadata-service, the system of record for datasets, files and workers, as every other service calls it
 * ({@code granary.metadata-url}; inject with {@code @RestClient}). The {@code find} methods answer empty where the
 * metadata-service answers 404; the others throw a {@link WebApplicationException} for any error status. All
 * but {@link #nodes} block: call them off the event loop. The calls that only read are {@link ReadAgain made again}
 * when their connection fails under them (a replica behind a Service that died): the {@code read...} methods are
 * the single HTTP calls.
 */
@RegisterRestClient(configKey = "metadata")
@RegisterClientHeaders(ClusterHeaders.class)
public interface MetadataClient {

    @GET
    @Path(MetadataApi.DATASETS)
    List<Dataset> readDatasets();

    default List<Dataset> datasets() {
        return ReadAgain.call(this::readDatasets);
    }

    /**
     * Creates a dataset for a caller (an S3 client's CreateBucket): the metadata-service checks and audits the call
     * as that caller's; with no caller, as the gateway's own (a bucket its creator may make by S3's rules, not by
     * its role).
     */
    @POST
    @Path(MetadataApi.DATASETS)
    @Consumes(MediaType.APPLICATION_JSON)
    Dataset create(@HeaderParam(ClusterCredential.ON_BEHALF_OF) String caller, DatasetSpec spec);

    /** Deletes a dataset for a caller (an S3 client's DeleteBucket), checked and audited as that caller's (or none's). */
    @DELETE
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.DATASET)
    void delete(@HeaderParam(ClusterCredential.ON_BEHALF_OF) String caller, @PathParam("name") String name);

    /** Replaces the dataset's S3 bucket settings (the gateway has decided the caller may). */
    @PUT
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.BUCKET)
    @Consumes(MediaType.APPLICATION_JSON)
    Dataset updateBucket(@PathParam("name") String name, BucketSettings settings);

    @GET
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.DATASET)
    Dataset readDataset(@PathParam("name") String name);

    default Dataset dataset(String name) {
        return ReadAgain.call(() -> readDataset(name));
    }

    /** A page of the dataset's listing from the metadata cache ({@code delimiter} null: the whole tree). */
    @GET
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.FILES)
    FileListing readFiles(@PathParam("name") String name, @QueryParam("prefix") String prefix,
                          @QueryParam("delimiter") String delimiter, @QueryParam("cursor") String cursor,
                          @QueryParam("limit") int limit);

    default FileListing files(String name, String prefix, String delimiter, String cursor, int limit) {
        return ReadAgain.call(() -> readFiles(name, prefix, delimiter, cursor, limit));
    }

    @GET
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.FILE)
    FileInfo readFile(@PathParam("name") String name, @PathParam("path") String path);

    default FileInfo file(String name, String path) {
        return ReadAgain.call(() -> readFile(name, path));
    }

    /** After a write or delete: the metadata-service re-reads the file from the under-store (404: it is gone). */
    @POST
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.REFRESH)
    @Consumes(MediaType.WILDCARD)
    FileInfo refresh(@PathParam("name") String name, @PathParam("path") String path);

    /** Re-read the dataset's metadata from the under-store; the dataset's phase says when it is done. */
    @POST
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.SYNC)
    @Consumes(MediaType.WILDCARD)
    void sync(@PathParam("name") String name);

    /** How much of the dataset each node caches; does not block. */
    @GET
    @Path(MetadataApi.DATASETS + "/" + MetadataApi.NODES)
    CompletionStage<List<NodeCache>> nodes(@PathParam("name") String name);

    @GET
    @Path(MetadataApi.WORKERS)
    List<Worker> readWorkers();

    default List<Worker> workers() {
        return ReadAgain.call(this::readWorkers);
    }

    default Optional<Dataset> findDataset(String name) {
        return absentIfNotFound(() -> dataset(name));
    }

    default Optional<FileInfo> findFile(String dataset, String path) {
        return absentIfNotFound(() -> file(dataset, path));
    }

    /** The file as the under-store has it now; empty once it is gone (or the dataset is). */
    default Optional<FileInfo> findRefreshed(String dataset, String path) {
        return absentIfNotFound(() -> refresh(dataset, path));
    }

    /** {@link #nodes}, empty for a dataset the metadata-service does not know. */
    default CompletionStage<Optional<List<NodeCache>>> findNodes(String name) {
        return nodes(name).thenApply(Optional::of).exceptionallyCompose(failure -> {
            Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
            return notFound(cause) ? CompletableFuture.completedFuture(Optional.empty())
                    : CompletableFuture.failedFuture(cause);
        });
    }

    /** The one place a 404 from the metadata-service becomes "absent". */
    static <T> Optional<T> absentIfNotFound(Supplier<T> call) {
        try {
            return Optional.ofNullable(call.get());
        } catch (WebApplicationException e) {
            if (notFound(e)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    static boolean notFound(Throwable failure) {
        return failure instanceof WebApplicationException web && web.getResponse().getStatus() == 404;
    }
}
