package io.granary.gateway.s3;

import io.vertx.core.Future;
import io.vertx.core.http.HttpMethod;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.Map;
import java.util.Set;

/** Which handler answers each S3 operation; what has none, or names a sub-resource we do not serve, is NotImplemented. */
@ApplicationScoped
class S3Dispatch {

    /** Sub-resources we know of and do not serve: answered NotImplemented rather than mistaken for a listing. */
    private static final Set<String> UNSUPPORTED_SUBRESOURCES = Set.of("policy", "versioning", "lifecycle",
            "tagging", "website", "logging", "notification", "replication", "encryption",
            "retention", "legal-hold", "object-lock", "torrent", "restore", "select", "accelerate", "requestPayment",
            "ownershipControls", "inventory", "analytics", "metrics", "intelligent-tiering",
            "attributes");

    /** From an allowed request to its answer; completes when the answer has been sent. */
    @FunctionalInterface
    interface Handler {
        Future<?> handle(S3Call call);
    }

    private final Map<S3Operation, Handler> handlers = new EnumMap<>(S3Operation.class);

    S3Dispatch(BucketHandlers buckets, ObjectHandlers objects) {
        handlers.put(S3Operation.LIST_BUCKETS, buckets::listBuckets);
        handlers.put(S3Operation.HEAD_BUCKET, buckets::head);
        handlers.put(S3Operation.CREATE_BUCKET, buckets::create);
        handlers.put(S3Operation.DELETE_BUCKET, buckets::delete);
        handlers.put(S3Operation.GET_BUCKET_LOCATION, buckets::location);
        handlers.put(S3Operation.LIST_OBJECTS_V2, buckets::listObjectsV2);
        handlers.put(S3Operation.LIST_OBJECTS, buckets::listObjects);
        handlers.put(S3Operation.LIST_OBJECT_VERSIONS, buckets::listObjectVersions);
        handlers.put(S3Operation.GET_BUCKET_ACL, buckets::getAcl);
        handlers.put(S3Operation.PUT_BUCKET_ACL, buckets::putAcl);
        handlers.put(S3Operation.GET_BUCKET_CORS, buckets::getCors);
        handlers.put(S3Operation.PUT_BUCKET_CORS, buckets::putCors);
        handlers.put(S3Operation.DELETE_BUCKET_CORS, buckets::deleteCors);
        handlers.put(S3Operation.GET_PUBLIC_ACCESS_BLOCK, buckets::getPublicAccessBlock);
        handlers.put(S3Operation.PUT_PUBLIC_ACCESS_BLOCK, buckets::putPublicAccessBlock);
        handlers.put(S3Operation.DELETE_PUBLIC_ACCESS_BLOCK, buckets::deletePublicAccessBlock);
        handlers.put(S3Operation.GET_OBJECT, objects::get);
        handlers.put(S3Operation.HEAD_OBJECT, objects::get);
        handlers.put(S3Operation.PUT_OBJECT, objects::put);
        handlers.put(S3Operation.COPY_OBJECT, objects::copy);
        handlers.put(S3Operation.UPLOAD_PART_COPY, objects::uploadPartCopy);
        handlers.put(S3Operation.UPLOAD_PART, objects::uploadPart);
        handlers.put(S3Operation.CREATE_MULTIPART_UPLOAD, objects::createMultipartUpload);
        handlers.put(S3Operation.COMPLETE_MULTIPART_UPLOAD, objects::completeMultipartUpload);
        handlers.put(S3Operation.ABORT_MULTIPART_UPLOAD, objects::abortMultipartUpload);
        handlers.put(S3Operation.DELETE_OBJECT, objects::delete);
        handlers.put(S3Operation.DELETE_OBJECTS, objects::deleteObjects);
        handlers.put(S3Operation.GET_OBJECT_ACL, objects::getAcl);
        handlers.put(S3Operation.PUT_OBJECT_ACL, objects::putAcl);
    }

    /** @throws S3Exception NotImplemented for what no handler answers (the preflight is answered before) */
    Future<?> dispatch(S3Call call) {
        S3Request request = call.request();
        if (request.http().method() == HttpMethod.GET && (request.has("uploads") || request.has("uploadId"))) {
            throw S3Exception.notImplemented("ListMultipartUploads and ListParts");
        }
        for (String name : UNSUPPORTED_SUBRESOURCES) {
            if (request.has(name)) {
                throw S3Exception.notImplemented("the '" + name + "' sub-resource");
            }
        }
        Handler handler = handlers.get(call.operation());
        if (handler == null) {
            throw S3Exception.notImplemented(request.http().method() + " " + (request.key() != null ? "on an object"
                    : request.bucket() != null ? "on a bucket" : "on the service"));
        }
        return handler.handle(call);
    }
}
