package io.granary.gateway.s3;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.write.ObjectWrites;
import io.vertx.core.Future;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * What an S3 request names, found: the dataset its bucket is (NoSuchBucket when none), whether it may be written,
 * and the file its key is (NoSuchKey). Blocking on a near-cache miss, but for {@link #resolve}.
 */
@ApplicationScoped
class Targets {

    /** A request's object, found. */
    record Resolved(Dataset dataset, FileInfo file) {
    }

    private final NearCache near;
    private final ObjectOps objects;
    private final ObjectWrites writes;

    Targets(NearCache near, ObjectOps objects, ObjectWrites writes) {
        this.near = near;
        this.objects = objects;
        this.writes = writes;
    }

    Dataset dataset(S3Request request) {
        return near.dataset(request.bucket()).orElseThrow(() -> S3Exception.noSuchBucket(request.bucket()));
    }

    Dataset writable(S3Request request) {
        Dataset dataset = dataset(request);
        if (Boolean.TRUE.equals(dataset.spec().readOnly())) {
            throw S3Exception.accessDenied("dataset '" + dataset.name() + "' is read-only");
        }
        return dataset;
    }

    /** {@link #writable}, and the write's If-Match or If-None-Match checked against the store's object now. */
    Dataset writableIf(S3Request request) {
        Dataset dataset = writable(request);
        if (Preconditions.conditionalWrite(request)) {
            Preconditions.checkWrite(request, writes.current(dataset, request.key()));
        }
        return dataset;
    }

    /** A warm read finds both in the near cache and stays on the event loop; a miss asks the metadata-service. */
    Future<Resolved> resolve(S3Call call) {
        S3Request request = call.request();
        Optional<Dataset> dataset = near.cachedDataset(request.bucket());
        Optional<FileInfo> file = dataset.flatMap(d -> near.cachedFile(d.name(), request.key()));
        if (file.isPresent()) {
            return Future.succeededFuture(new Resolved(dataset.get(), file.get()));
        }
        return call.blocking(() -> {
            Dataset found = dataset(request);
            return new Resolved(found, objects.file(found, request.key()));
        });
    }
}
