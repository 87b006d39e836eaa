package io.granary.fuse.client;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A worker's block API as this client uses it: a whole block ({@code GET /blocks/{dataset}/{index}}), or a fill of
 * one on a worker of this node (its {@code HEAD}); the worker fills from the under-store on a miss,
 * concurrent misses of one block sharing one fill.
 */
public final class OwnerBlocks {

    private final HttpClient http;
    private final Duration timeout;

    private final String authorization;

    /** @param authorization the cluster credential, which a worker asks of every caller */
    public OwnerBlocks(Duration timeout, String authorization) {
        this.timeout = timeout;
        this.authorization = authorization;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2))
                .build();
    }

    /** Failure of an owner to answer with the block: a 4xx is our request's fault, anything else the owner's. */
    public static final class OwnerFailed extends IOException {

        private final int status;

        OwnerFailed(String message, int status) {
            super(message);
            this.status = status;
        }

        /** The owner's status, 0 when it gave none. */
        public int status() {
            return status;
        }
    }

    /** The block's bytes, exactly {@code length} of them. */
    public byte[] block(Worker owner, String dataset, FileInfo file, int index, int length)
            throws IOException, InterruptedException {
        URI uri = URI.create(owner.address() + BlockApi.blockUri(dataset, index, file.path(), file.etag()));
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(uri).timeout(timeout)
                        .header("Authorization", authorization).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw new OwnerFailed("owner " + owner.id() + " answered " + response.statusCode() + " for block "
                        + index + " of " + file.path(), response.statusCode());
            }
            byte[] bytes = body.readNBytes(length);
            if (bytes.length != length) {
                throw new OwnerFailed("owner " + owner.id() + " sent " + bytes.length + " of " + length
                        + " bytes of block " + index + " of " + file.path(), 0);
            }
            return bytes;
        }
    }

    /**
     * Makes the worker hold the block: a {@code HEAD} of it, which fills it first on a miss (at once, not queued
     * behind preloads), so it can then be read from its file on this node.
     *
     * @return whether the worker holds it now (false: no level had room, read it another way)
     */
    public boolean fill(Worker owner, String dataset, FileInfo file, int index)
            throws IOException, InterruptedException {
        HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(owner.address()
                        + BlockApi.blockUri(dataset, index, file.path(), file.etag()))).timeout(timeout)
                .header("Authorization", authorization).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() != 200) {
            throw new OwnerFailed("owner " + owner.id() + " answered " + response.statusCode() + " to a fill of block "
                    + index + " of " + file.path(), response.statusCode());
        }
        return !BlockApi.BYPASS.equals(response.headers().firstValue(BlockApi.CACHE_HEADER).orElse(""));
    }
}
