package io.granary.gateway.s3;

import io.granary.contracts.block.ByteRange;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.read.ObjectReads;
import io.granary.gateway.read.SequentialPrefetch;
import io.granary.ufs.ObjectMetadata;
import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.regex.Pattern;

/** HeadObject and GetObject: the file from the near cache, its head from the metadata, its body from the read path. */
@ApplicationScoped
public class ObjectOps {

    /** An ETag S3 gives an object joined from N parts: {@code <md5>-N}. */
    private static final Pattern MULTIPART_ETAG = Pattern.compile("[0-9a-f]{32}-[1-9][0-9]*");

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

    /**
     * GetObject of a part: an object written whole is its only part, so part 1 is all of it. Where a multipart
     * upload's parts begin is not kept (the ETag says only how many there were), so their parts are not served.
     */
    private static void checkWholeObjectPart(int partNumber, FileInfo file) {
        if (MULTIPART_ETAG.matcher(file.etag()).matches()) {
            throw S3Exception.notImplemented("GetObject of one part of an object uploaded in parts");
        }
        if (partNumber != 1) {
            throw new S3Exception(400, "InvalidPart", "The requested partnumber is not satisfiable: the object has one part");
        }
    }

    /**
     * The object's metadata as headers, then what a GET asks for instead ({@code response-content-type=}...), as S3
     * answers them.
     */
    private static void headers(S3Request request, HttpServerResponse response, FileInfo file) {
        Map<String, String> metadata = file.metadata();
        String contentType = metadata.get("content-type");
        response.putHeader("Content-Type", contentType != null ? contentType : "application/octet-stream");
        if (!metadata.isEmpty()) {
            metadata.forEach((name, value) -> {
                if (!name.equals("content-type") && !name.equals(Acls.METADATA_KEY)) {
                    response.putHeader(name, value);
                }
            });
        }
        if (request.http().query() != null) {
            for (String header : ObjectMetadata.STANDARD) {
                String asked = request.param("response-" + header);
                if (asked != null) {
                    response.putHeader(header, asked);
                }
            }
        }
    }

    /** Answers a GET or HEAD of {@code file}; on the event loop. Completes when the response has ended. */
    Future<Void> get(S3Request request, Dataset dataset, FileInfo file) {
        HttpServerResponse response = request.http().response();
        int precondition = Preconditions.check(request, file);
        if (precondition == 412) {
            throw Preconditions.preconditionFailed();
        }
        response.putHeader("ETag", S3Responses.etag(file.etag()))
                .putHeader("Last-Modified", S3Responses.httpDate(file.mtime()))
                .putHeader("Accept-Ranges", "bytes");
        if (precondition == 304) {
            return response.setStatusCode(304).end();
        }
        if (request.http().query() != null && request.param("partNumber") != null) {
            checkWholeObjectPart(request.partNumber(), file);
        }
        headers(request, response, file);
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
