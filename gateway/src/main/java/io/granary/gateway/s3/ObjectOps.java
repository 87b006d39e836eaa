package io.granary.gateway.s3;

import io.granary.contracts.block.ByteRange;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.read.ObjectReads;
import io.granary.gateway.read.SequentialPrefetch;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import jakarta.enterprise.context.ApplicationScoped;

/** HeadObject and GetObject: the file from the near cache, its head from the metadata, its body from the read path. */
@ApplicationScoped
public class ObjectOps {

    private final NearCache near;
    private final ObjectReads reads;
    private final SequentialPrefetch prefetch;

    ObjectOps(NearCache near, ObjectReads reads, SequentialPrefetch prefetch) {
        this.near = near;
        this.reads = reads;
        this.prefetch = prefetch;
    }

    /** Blocking on a near-cache miss: call off the event loop. */
    public FileInfo file(Dataset dataset, String key) {
        return near.file(dataset.name(), key).orElseThrow(() -> S3Exception.noSuchKey(key));
    }

    /** Answers a GET or HEAD of {@code file}; on the event loop. Completes when the response has ended. */
    Future<Void> get(S3Request request, Dataset dataset, FileInfo file) {
        HttpServerResponse response = request.http().response();
        int precondition = Preconditions.check(request, file);
        if (precondition == 412) {
            throw new S3Exception(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
        }
        response.putHeader("ETag", S3Responses.etag(file.etag()))
                .putHeader("Last-Modified", S3Responses.httpDate(file.mtime()))
                .putHeader("Accept-Ranges", "bytes");
        if (precondition == 304) {
            return response.setStatusCode(304).end();
        }
        response.putHeader("Content-Type", "application/octet-stream");
        ByteRange range = ByteRange.parse(request.header("Range"));
        ByteRange.Slice slice = new ByteRange.Slice(0, file.size());
        if (range != null) {
            slice = range.resolve(file.size());
            if (slice == null) {
                response.putHeader("Content-Range", "bytes */" + file.size());
                throw new S3Exception(416, "InvalidRange", "The requested range is not satisfiable");
            }
            response.setStatusCode(206).putHeader("Content-Range", slice.contentRange(file.size()));
        }
        response.putHeader("Content-Length", Long.toString(slice.length()));
        if (request.http().method() == HttpMethod.HEAD || slice.length() == 0) {
            return response.end();
        }
        if (range != null) {
            prefetch.rangeRead(dataset, file, slice.offset(), slice.length());
        }
        return reads.stream(request.http(), dataset, file, slice.offset(), slice.length())
                .compose(streamed -> response.end());
    }
}
