package io.granary.gateway.s3;

import io.vertx.core.http.HttpMethod;

/**
 * The S3 operations the gateway tells apart, by the names AWS gives them (the {@code operation} tag of its
 * metrics). What it does not serve is {@link #UNSUPPORTED}, answered NotImplemented; {@link #UNKNOWN} is a request
 * that failed before it could be told apart (unparseable or unauthenticated).
 */
public enum S3Operation {
    LIST_BUCKETS("ListBuckets"),
    CREATE_BUCKET("CreateBucket"),
    DELETE_BUCKET("DeleteBucket"),
    HEAD_BUCKET("HeadBucket"),
    GET_BUCKET_LOCATION("GetBucketLocation"),
    GET_BUCKET_ACL("GetBucketAcl"),
    PUT_BUCKET_ACL("PutBucketAcl"),
    GET_BUCKET_CORS("GetBucketCors"),
    PUT_BUCKET_CORS("PutBucketCors"),
    DELETE_BUCKET_CORS("DeleteBucketCors"),
    GET_PUBLIC_ACCESS_BLOCK("GetPublicAccessBlock"),
    PUT_PUBLIC_ACCESS_BLOCK("PutPublicAccessBlock"),
    DELETE_PUBLIC_ACCESS_BLOCK("DeletePublicAccessBlock"),
    GET_OBJECT_ACL("GetObjectAcl"),
    PUT_OBJECT_ACL("PutObjectAcl"),
    LIST_OBJECTS("ListObjects"),
    LIST_OBJECTS_V2("ListObjectsV2"),
    LIST_OBJECT_VERSIONS("ListObjectVersions"),
    GET_OBJECT("GetObject"),
    HEAD_OBJECT("HeadObject"),
    PUT_OBJECT("PutObject"),
    COPY_OBJECT("CopyObject"),
    CREATE_MULTIPART_UPLOAD("CreateMultipartUpload"),
    UPLOAD_PART("UploadPart"),
    UPLOAD_PART_COPY("UploadPartCopy"),
    COMPLETE_MULTIPART_UPLOAD("CompleteMultipartUpload"),
    ABORT_MULTIPART_UPLOAD("AbortMultipartUpload"),
    DELETE_OBJECT("DeleteObject"),
    DELETE_OBJECTS("DeleteObjects"),
    /** A browser's OPTIONS before a cross-origin request: never signed. */
    CORS_PREFLIGHT("CorsPreflight"),
    UNSUPPORTED("Unsupported"),
    UNKNOWN("Unknown");

    private final String awsName;

    S3Operation(String awsName) {
        this.awsName = awsName;
    }

    public String awsName() {
        return awsName;
    }

    /** Whether the request body is the operation's input (any other body is drained unread). */
    boolean readsBody() {
        return this == PUT_OBJECT || this == UPLOAD_PART || this == COMPLETE_MULTIPART_UPLOAD || this == DELETE_OBJECTS
                || this == CREATE_BUCKET || this == PUT_BUCKET_ACL || this == PUT_OBJECT_ACL || this == PUT_BUCKET_CORS
                || this == PUT_PUBLIC_ACCESS_BLOCK;
    }

    /** Which operation a request is, from its method, whether it names a bucket and a key, and its query. */
    static S3Operation of(S3Request request) {
        HttpMethod method = request.http().method();
        if (method == HttpMethod.OPTIONS) {
            return request.bucket() == null ? UNSUPPORTED : CORS_PREFLIGHT;
        }
        if (request.bucket() == null) {
            return method == HttpMethod.GET ? LIST_BUCKETS : UNSUPPORTED;
        }
        if (request.key() == null) {
            if (request.has("acl")) {
                return method == HttpMethod.GET ? GET_BUCKET_ACL : method == HttpMethod.PUT ? PUT_BUCKET_ACL : UNSUPPORTED;
            }
            if (request.has("cors")) {
                return method == HttpMethod.GET ? GET_BUCKET_CORS : method == HttpMethod.PUT ? PUT_BUCKET_CORS
                        : method == HttpMethod.DELETE ? DELETE_BUCKET_CORS : UNSUPPORTED;
            }
            if (request.has("publicAccessBlock")) {
                return method == HttpMethod.GET ? GET_PUBLIC_ACCESS_BLOCK : method == HttpMethod.PUT
                        ? PUT_PUBLIC_ACCESS_BLOCK : method == HttpMethod.DELETE ? DELETE_PUBLIC_ACCESS_BLOCK : UNSUPPORTED;
            }
            if (method == HttpMethod.GET) {
                return request.has("location") ? GET_BUCKET_LOCATION
                        : request.has("versions") ? LIST_OBJECT_VERSIONS
                        : "2".equals(request.param("list-type")) ? LIST_OBJECTS_V2 : LIST_OBJECTS;
            }
            if (method == HttpMethod.POST && request.has("delete")) {
                return DELETE_OBJECTS;
            }
            // A PUT or DELETE with a sub-resource (?acl, ?policy...) is not the bucket's creation or deletion.
            if (method == HttpMethod.PUT && !request.hasSubresource()) {
                return CREATE_BUCKET;
            }
            if (method == HttpMethod.DELETE && !request.hasSubresource()) {
                return DELETE_BUCKET;
            }
            return method == HttpMethod.HEAD ? HEAD_BUCKET : UNSUPPORTED;
        }
        if (request.has("acl")) {
            return method == HttpMethod.GET ? GET_OBJECT_ACL : method == HttpMethod.PUT ? PUT_OBJECT_ACL : UNSUPPORTED;
        }
        if (method == HttpMethod.GET) {
            return GET_OBJECT;
        } else if (method == HttpMethod.HEAD) {
            return HEAD_OBJECT;
        } else if (method == HttpMethod.PUT) {
            boolean copy = request.header("x-amz-copy-source") != null;
            return request.has("uploadId") ? copy ? UPLOAD_PART_COPY : UPLOAD_PART : copy ? COPY_OBJECT : PUT_OBJECT;
        } else if (method == HttpMethod.POST) {
            return request.has("uploads") ? CREATE_MULTIPART_UPLOAD
                    : request.has("uploadId") ? COMPLETE_MULTIPART_UPLOAD : UNSUPPORTED;
        } else if (method == HttpMethod.DELETE) {
            return request.has("uploadId") ? ABORT_MULTIPART_UPLOAD : DELETE_OBJECT;
        }
        return UNSUPPORTED;
    }
}
