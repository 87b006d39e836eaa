package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.CorsRule;
import io.granary.contracts.bucket.PublicAccessBlock;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.kit.sigv4.Principal;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.console.Console;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.gateway.write.ObjectWrites;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.security.Caller;
import io.granary.ufs.AccessDeniedException;
import io.granary.ufs.InvalidPartException;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectMetadata;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.PathOutsideMountException;
import io.granary.ufs.UnderStoreException;
import io.granary.ufs.UnderStoreUnavailableException;
import io.granary.ufs.UploadNotFoundException;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The S3 API at the gateway's root, path-style (bucket = dataset, key = path in it), as plain Vert.x routes: bodies
 * stream both ways and a warm read is sent zero-copy, which a REST resource would get in the way of. {@code /q/**}
 * (health, metrics, OpenAPI) and {@code /api/**} (the management API) are left to their own routes.
 */
@ApplicationScoped
public class S3Routes {

    private static final Logger LOG = Logger.getLogger(S3Routes.class);
    /** Sub-resources we know of and do not serve: answered NotImplemented rather than mistaken for a listing. */
    private static final Set<String> UNSUPPORTED_SUBRESOURCES = Set.of("policy", "versioning", "lifecycle",
            "tagging", "website", "logging", "notification", "replication", "encryption",
            "retention", "legal-hold", "object-lock", "torrent", "restore", "select", "accelerate", "requestPayment",
            "ownershipControls", "inventory", "analytics", "metrics", "intelligent-tiering",
            "attributes");

    private static final HexFormat REQUEST_ID = HexFormat.of().withUpperCase();
    private static final CharSequence CONTENT_SECURITY_POLICY = HttpHeaders.createOptimized("Content-Security-Policy");
    private static final CharSequence SANDBOX = HttpHeaders.createOptimized("sandbox");
    private static final CharSequence CONTENT_TYPE_OPTIONS = HttpHeaders.createOptimized("X-Content-Type-Options");
    private static final CharSequence NOSNIFF = HttpHeaders.createOptimized("nosniff");

    private final Authenticator authenticator;
    private final Permissions permissions;
    private final NearCache near;
    private final BucketOps buckets;
    private final DatasetBuckets datasetBuckets;
    private final ObjectOps objects;
    private final ObjectWrites writes;
    private final GatewayMetrics metrics;
    private final String region;

    S3Routes(Authenticator authenticator, Permissions permissions, NearCache near, BucketOps buckets, DatasetBuckets datasetBuckets,
             ObjectOps objects, ObjectWrites writes, GatewayMetrics metrics, GranaryConfig shared) {
        this.authenticator = authenticator;
        this.permissions = permissions;
        this.near = near;
        this.buckets = buckets;
        this.datasetBuckets = datasetBuckets;
        this.objects = objects;
        this.writes = writes;
        this.metrics = metrics;
        this.region = shared.region();
    }

    void routes(@Observes Router router) {
        router.route().order(-100).handler(this::handle);
    }

    private void handle(RoutingContext ctx) {
        String path = ctx.request().path();
        if (path.startsWith("/q/") || path.equals("/q") || path.startsWith("/api/") || Console.serves(path)) {
            ctx.next();
            return;
        }
        HttpServerRequest http = ctx.request();
        http.pause();  // a body is read once the request is known to be allowed and what it is for
        // Unique enough to find a request in the logs; SecureRandom (UUID) would contend on the hot path.
        String requestId = REQUEST_ID.toHexDigits(ThreadLocalRandom.current().nextLong());
        long started = System.nanoTime();
        HttpServerResponse response = http.response();
        response.putHeader("x-amz-request-id", requestId).putHeader("Server", "Granary")
                // An object is data, never a page of this origin: an uploaded HTML file opened in a browser must not
                // run script beside the console and read its token.
                .putHeader(CONTENT_SECURITY_POLICY, SANDBOX).putHeader(CONTENT_TYPE_OPTIONS, NOSNIFF);
        S3Request[] parsed = {null};
        S3Operation[] operation = {S3Operation.UNKNOWN};
        response.headersEndHandler(head -> metrics.firstByte(operation[0].awsName(),
                Duration.ofNanos(System.nanoTime() - started)));
        response.endHandler(end -> metrics.request(operation[0].awsName(), response.getStatusCode()));
        try {
            S3Request request = S3Request.of(http);
            parsed[0] = request;
            operation[0] = S3Operation.of(request);
            boolean cors = request.bucket() != null && http.getHeader("Origin") != null;
            if (operation[0] == S3Operation.CORS_PREFLIGHT) {
                http.resume();
                blocking(ctx, () -> {
                    Cors.preflight(dataset(request), request);
                    return true;
                }).compose(done -> response.end()).onFailure(failure -> fail(request, http, failure, requestId));
                return;
            }
            // The CORS headers go on whatever the answer is, a refusal included: the bucket is looked up first.
            Future<Object> ready = !cors ? Future.succeededFuture() : blocking(ctx, () -> {
                near.dataset(request.bucket()).ifPresent(dataset -> Cors.decorate(dataset, request));
                return true;
            });
            ready.compose(done -> {
                Principal principal = authenticator.authenticate(http);
                Caller caller = authenticator.caller(principal);
                boolean byRole = Permissions.byRole(caller, request.bucket(), operation[0])
                        && request.header("x-amz-expected-bucket-owner") == null;
                Future<Object> allowed = byRole ? Future.succeededFuture() : blocking(ctx, () -> {
                    permissions.check(caller, request, operation[0]);
                    return true;
                });
                return allowed.compose(yes -> {
                    if (!operation[0].readsBody()) {
                        http.resume();  // any body is not ours to read: let it drain, so the connection can go on
                    } else if ("100-continue".equalsIgnoreCase(http.getHeader("Expect"))) {
                        response.writeContinue();  // boto3 waits for it before sending an upload's body
                    }
                    return dispatch(ctx, request, principal, caller, operation[0]);
                });
            }).onFailure(failure -> fail(parsed[0], http, failure, requestId));
        } catch (RuntimeException failure) {
            fail(parsed[0] != null ? parsed[0] : new S3Request(http, null, null, http.path()), http, failure, requestId);
        }
    }

    private Future<?> dispatch(RoutingContext ctx, S3Request request, Principal principal, Caller caller,
                               S3Operation operation) {
        if (request.http().method() == HttpMethod.GET && (request.has("uploads") || request.has("uploadId"))) {
            throw S3Exception.notImplemented("ListMultipartUploads and ListParts");
        }
        for (String name : UNSUPPORTED_SUBRESOURCES) {
            if (request.has(name)) {
                throw S3Exception.notImplemented("the '" + name + "' sub-resource");
            }
        }
        HttpServerResponse response = request.http().response();
        return switch (operation) {
            case LIST_BUCKETS -> blocking(ctx, () -> buckets.listBuckets(caller, request)).compose(xml -> ok(response, xml));
            case HEAD_BUCKET -> blocking(ctx, () -> dataset(request)).compose(d -> response.end());
            case CREATE_BUCKET -> XmlBodies.read(request.http(), DatasetBuckets.MAX_CONFIGURATION,
                            "the CreateBucketConfiguration")
                    .compose(configuration -> blocking(ctx, () -> {
                        Acl acl = Acls.fromHeaders(request, caller.name(), caller.name(), this::known)
                                .orElse(Acl.privateTo(caller.name()));
                        datasetBuckets.create(caller, request.bucket(), configuration, region, acl);
                        return true;
                    }))
                    .compose(done -> response.putHeader("Location", "/" + request.bucket()).end());
            case DELETE_BUCKET -> blocking(ctx, () -> {
                datasetBuckets.delete(caller, dataset(request));
                return true;
            }).compose(done -> response.setStatusCode(204).end());
            case GET_BUCKET_LOCATION -> blocking(ctx, () -> dataset(request))
                    .compose(d -> ok(response, buckets.location(region)));
            case LIST_OBJECTS_V2 -> blocking(ctx, () -> buckets.listV2(request, dataset(request)))
                    .compose(xml -> ok(response, xml));
            case LIST_OBJECTS -> blocking(ctx, () -> buckets.listV1(request, dataset(request)))
                    .compose(xml -> ok(response, xml));
            case GET_BUCKET_ACL -> blocking(ctx, () -> Acls.policy(Acls.ofBucket(dataset(request))))
                    .compose(xml -> ok(response, xml));
            case GET_OBJECT_ACL -> resolve(ctx, request)
                    .compose(resolved -> ok(response, Acls.policy(Acls.ofObject(resolved.file(), resolved.dataset()))));
            case PUT_BUCKET_ACL -> XmlBodies.read(request.http(), Acls.MAX_POLICY, "the AccessControlPolicy")
                    .compose(body -> blocking(ctx, () -> {
                        Dataset dataset = dataset(request);
                        String owner = Acls.bucketOwner(dataset);
                        Acl acl = Acls.requested(request, body, owner, owner, this::known);
                        Permissions.checkMayGrant(dataset, acl);
                        return datasetBuckets.updateSettings(dataset, settings -> settings.withAcl(acl));
                    }))
                    .compose(done -> response.end());
            case PUT_OBJECT_ACL -> XmlBodies.read(request.http(), Acls.MAX_POLICY, "the AccessControlPolicy")
                    .compose(body -> blocking(ctx, () -> {
                        Dataset dataset = dataset(request);
                        FileInfo file = objects.file(dataset, request.key());
                        Acl acl = Acls.requested(request, body, Acls.ofObject(file, dataset).owner(),
                                Acls.bucketOwner(dataset), this::known);
                        Permissions.checkMayGrant(dataset, acl);
                        Map<String, String> stored = writes.metadataNow(dataset, file.path());
                        return writes.replaceMetadata(dataset, file,
                                Acls.withAcl(stored, acl, Acls.bucketOwner(dataset)));
                    }))
                    .compose(done -> response.end());
            case GET_BUCKET_CORS -> blocking(ctx, () -> Cors.rules(dataset(request)).map(Cors::document)
                    .orElseThrow(() -> new S3Exception(404, "NoSuchCORSConfiguration",
                            "The CORS configuration does not exist")))
                    .compose(xml -> ok(response, xml));
            case PUT_BUCKET_CORS -> XmlBodies.read(request.http(), Cors.MAX_CONFIGURATION, "the CORSConfiguration")
                    .compose(body -> blocking(ctx, () -> {
                        List<CorsRule> rules = Cors.parse(body);
                        return datasetBuckets.updateSettings(dataset(request), settings -> settings.withCors(rules));
                    }))
                    .compose(done -> response.end());
            case DELETE_BUCKET_CORS -> blocking(ctx, () -> datasetBuckets.updateSettings(dataset(request),
                            settings -> settings.withCors(null)))
                    .compose(done -> response.setStatusCode(204).end());
            case GET_PUBLIC_ACCESS_BLOCK -> blocking(ctx, () -> Permissions.publicAccessBlock(dataset(request))
                    .map(PublicAccess::document)
                    .orElseThrow(() -> new S3Exception(404, "NoSuchPublicAccessBlockConfiguration",
                            "The public access block configuration was not found")))
                    .compose(xml -> ok(response, xml));
            case PUT_PUBLIC_ACCESS_BLOCK -> XmlBodies.read(request.http(), PublicAccess.MAX_CONFIGURATION,
                            "the PublicAccessBlockConfiguration")
                    .compose(body -> blocking(ctx, () -> {
                        PublicAccessBlock block = PublicAccess.parse(body);
                        return datasetBuckets.updateSettings(dataset(request),
                                settings -> settings.withPublicAccessBlock(block));
                    }))
                    .compose(done -> response.end());
            case DELETE_PUBLIC_ACCESS_BLOCK -> blocking(ctx, () -> datasetBuckets.updateSettings(dataset(request),
                            settings -> settings.withPublicAccessBlock(null)))
                    .compose(done -> response.setStatusCode(204).end());
            case LIST_OBJECT_VERSIONS -> blocking(ctx, () -> buckets.listVersions(request, dataset(request)))
                    .compose(xml -> ok(response, xml));
            case GET_OBJECT, HEAD_OBJECT -> resolve(ctx, request)
                    .compose(resolved -> objects.get(request, resolved.dataset(), resolved.file()));
            case PUT_OBJECT -> blocking(ctx, () -> {
                        Dataset dataset = writableIf(request);
                        return new Target(dataset, withAcl(request, caller, dataset, metadata(request)));
                    })
                    .compose(target -> writes.put(request.http(), principal, target.dataset(), request.key(),
                            target.metadata()))
                    .compose(written -> response.putHeader("ETag", S3Responses.etag(written.etag())).end());
            case COPY_OBJECT -> blocking(ctx, () -> {
                        Copy copy = new Copy(copySource(caller, request), writable(request));
                        copy.refuseOntoItself(request);
                        Map<String, String> metadata = "REPLACE".equals(request.header("x-amz-metadata-directive"))
                                ? metadata(request)
                                : writes.metadataNow(copy.source().dataset(), copy.source().file().path());
                        return new CopyTo(copy, withAcl(request, caller, copy.target(), metadata));
                    })
                    .compose(copy -> writes.copy(copy.copy().source().dataset(), copy.copy().source().file(),
                            copy.copy().target(), request.key(), copy.metadata()))
                    .compose(file -> ok(response, copyResult("CopyObjectResult", file.etag(), file.mtime())));
            case UPLOAD_PART_COPY -> blocking(ctx, () -> new Copy(copySource(caller, request), writable(request)))
                    .compose(copy -> {
                        FileInfo from = copy.source().file();
                        CopySource.Range range = CopySource.range(request.header("x-amz-copy-source-range"), from.size());
                        return writes.copyPart(copy.source().dataset(), from, range.first(), range.length(),
                                copy.target(), request.key(), request.param("uploadId"), request.partNumber());
                    })
                    .compose(etag -> ok(response, copyResult("CopyPartResult", etag, Instant.now())));
            case UPLOAD_PART -> blocking(ctx, () -> writable(request))
                    .compose(dataset -> writes.uploadPart(request.http(), principal, dataset, request.key(),
                            request.param("uploadId"), request.partNumber()))
                    .compose(etag -> response.putHeader("ETag", S3Responses.etag(etag)).end());
            case CREATE_MULTIPART_UPLOAD -> blocking(ctx, () -> {
                Dataset dataset = writable(request);
                return Multipart.initiated(dataset.name(), request.key(), writes.createUpload(dataset, request.key(),
                        withAcl(request, caller, dataset, metadata(request))));
            }).compose(xml -> ok(response, xml));
            case COMPLETE_MULTIPART_UPLOAD -> Multipart.readParts(request.http())
                    .compose(parts -> blocking(ctx, () -> writes.completeUpload(writableIf(request), request.key(),
                            request.param("uploadId"), parts)))
                    .compose(done -> ok(response, Multipart.completed(request, done)));
            case ABORT_MULTIPART_UPLOAD -> blocking(ctx, () -> {
                writes.abortUpload(writable(request), request.key(), request.param("uploadId"));
                return true;
            }).compose(done -> response.setStatusCode(204).end());
            case DELETE_OBJECT -> blocking(ctx, () -> {
                writes.delete(writable(request), request.key());
                return true;
            }).compose(done -> response.setStatusCode(204).end());
            case DELETE_OBJECTS -> MultiDelete.read(request.http())
                    .compose(asked -> blocking(ctx, () -> {
                        Dataset dataset = writable(request);
                        List<MultiDelete.Outcome> outcomes = new ArrayList<>(asked.keys().size());
                        asked.keys().forEach(key -> outcomes.add(deleteOne(dataset, key)));
                        return MultiDelete.result(asked, outcomes);
                    }))
                    .compose(xml -> ok(response, xml));
            case CORS_PREFLIGHT, UNSUPPORTED, UNKNOWN -> throw S3Exception.notImplemented(request.http().method() + " "
                    + (request.key() != null ? "on an object" : request.bucket() != null ? "on a bucket"
                    : "on the service"));
        };
    }

    /** One key of a DeleteObjects: deleted, already gone (as S3 says: deleted), or failed on its own. */
    private MultiDelete.Outcome deleteOne(Dataset dataset, String key) {
        try {
            writes.delete(dataset, key);
        } catch (ObjectNotFoundException gone) {
            // deleting what is not there succeeds
        } catch (RuntimeException failure) {
            return new MultiDelete.Outcome(key, translate(failure));
        }
        return new MultiDelete.Outcome(key, null);
    }

    private record Resolved(Dataset dataset, FileInfo file) {
    }

    /** Where a write goes, and the metadata it keeps. */
    private record Target(Dataset dataset, Map<String, String> metadata) {
    }

    /** A copy, and the metadata its object keeps. */
    private record CopyTo(Copy copy, Map<String, String> metadata) {
    }

    /**
     * The metadata a write keeps, with the ACL it asks for (private by default) owned by the writer; a public one
     * is refused where the bucket blocks them.
     */
    private Map<String, String> withAcl(S3Request request, Caller caller, Dataset dataset, Map<String, String> metadata) {
        String bucketOwner = Acls.bucketOwner(dataset);
        Acl acl = Acls.fromHeaders(request, caller.name(), bucketOwner, this::known)
                .orElse(Acl.privateTo(caller.name()));
        Permissions.checkMayGrant(dataset, acl);
        return Acls.withAcl(metadata, acl, bucketOwner);
    }

    private boolean known(String identity) {
        return authenticator.known(identity);
    }

    /** A copy's source, resolved, and the dataset it is copied into. */
    private record Copy(Resolved source, Dataset target) {

        /** S3 copies an object onto itself only to replace its metadata. */
        void refuseOntoItself(S3Request request) {
            if (source.dataset().name().equals(target.name()) && source.file().path().equals(request.key())
                    && !"REPLACE".equals(request.header("x-amz-metadata-directive"))) {
                throw new S3Exception(400, "InvalidRequest", "This copy request is illegal because it is trying to "
                        + "copy an object to itself without changing the object's metadata, storage class, website "
                        + "redirect location or encryption attributes.");
            }
        }
    }

    /** Blocking: the object {@code x-amz-copy-source} names, which the caller must be able to read, as it is now. */
    private Resolved copySource(Caller caller, S3Request request) {
        String directive = request.header("x-amz-metadata-directive");
        if (directive != null && !directive.equals("COPY") && !directive.equals("REPLACE")) {
            throw S3Exception.invalidArgument("Unknown metadata directive: " + directive);
        }
        CopySource source = CopySource.parse(request.header("x-amz-copy-source"));
        boolean byRole = Permissions.byRole(caller, source.bucket(), S3Operation.GET_OBJECT);
        Dataset dataset = near.dataset(source.bucket()).orElseThrow(() -> byRole
                ? S3Exception.noSuchBucket(source.bucket()) : S3Exception.accessDenied("Access Denied"));
        FileInfo file = near.file(dataset.name(), source.key()).orElseThrow(() -> byRole
                ? S3Exception.noSuchKey(source.key()) : S3Exception.accessDenied("Access Denied"));
        if (!byRole && !permissions.mayRead(caller, dataset, file)) {
            throw S3Exception.accessDenied("Access Denied");
        }
        if (!Preconditions.copySourceMet(request, file)) {
            throw Preconditions.preconditionFailed();
        }
        return new Resolved(dataset, file);
    }

    private static String copyResult(String element, String etag, Instant modified) {
        return Xml.document(element).element("LastModified", Xml.timestamp(modified))
                .element("ETag", S3Responses.etag(etag)).end(element);
    }

    /** A warm read finds both in the near cache and stays on the event loop; a miss asks the metadata-service. */
    private Future<Resolved> resolve(RoutingContext ctx, S3Request request) {
        Optional<Dataset> dataset = near.cachedDataset(request.bucket());
        Optional<FileInfo> file = dataset.flatMap(d -> near.cachedFile(d.name(), request.key()));
        if (file.isPresent()) {
            return Future.succeededFuture(new Resolved(dataset.get(), file.get()));
        }
        return blocking(ctx, () -> {
            Dataset found = dataset(request);
            return new Resolved(found, objects.file(found, request.key()));
        });
    }

    private Dataset dataset(S3Request request) {
        return near.dataset(request.bucket()).orElseThrow(() -> S3Exception.noSuchBucket(request.bucket()));
    }

    private Dataset writable(S3Request request) {
        Dataset dataset = dataset(request);
        if (Boolean.TRUE.equals(dataset.spec().readOnly())) {
            throw S3Exception.accessDenied("dataset '" + dataset.name() + "' is read-only");
        }
        return dataset;
    }

    /** {@link #writable}, and the write's If-Match or If-None-Match checked against the store's object now. */
    private Dataset writableIf(S3Request request) {
        Dataset dataset = writable(request);
        if (Preconditions.conditionalWrite(request)) {
            Preconditions.checkWrite(request, writes.current(dataset, request.key()));
        }
        return dataset;
    }

    /** The metadata a write gives its object: standard headers and user metadata, at most 2 KiB of the latter. */
    private static Map<String, String> metadata(S3Request request) {
        Map<String, String> metadata = ObjectMetadata.of(request.http().headers());
        metadata.remove(Acls.METADATA_KEY);  // kept by Granary alone: a client's would forge an ACL
        int userBytes = 0;
        for (Map.Entry<String, String> entry : metadata.entrySet()) {
            if (entry.getKey().startsWith(ObjectMetadata.USER_PREFIX)) {
                userBytes += entry.getKey().length() - ObjectMetadata.USER_PREFIX.length()
                        + entry.getValue().getBytes(StandardCharsets.UTF_8).length;
            }
        }
        if (userBytes > ObjectMetadata.MAX_USER_BYTES) {
            throw new S3Exception(400, "MetadataTooLarge", "Your metadata headers exceed the maximum allowed metadata "
                    + "size: " + userBytes + " bytes of at most " + ObjectMetadata.MAX_USER_BYTES);
        }
        return metadata;
    }

    private static Future<Void> ok(HttpServerResponse response, String xml) {
        return response.putHeader("Content-Type", S3Responses.XML).end(xml);
    }

    private static <T> Future<T> blocking(RoutingContext ctx, Callable<T> work) {
        return ctx.vertx().executeBlocking(work, false);
    }

    private void fail(S3Request request, HttpServerRequest http, Throwable failure, String requestId) {
        if (http.method() != HttpMethod.PUT && http.method() != HttpMethod.POST && !http.isEnded()) {
            http.resume();  // no body to speak of: the connection goes on (uploads are answered with close)
        }
        S3Responses.error(request, http.response(), translate(failure), requestId);
    }

    /** Whatever went wrong, as the S3 error a client can act on; only the unexpected is a 500, and it is logged. */
    private static S3Exception translate(Throwable failure) {
        if (failure instanceof S3Exception s3) {
            return s3;
        } else if (failure instanceof ObjectNotFoundException missing) {
            return S3Exception.noSuchKey(missing.getMessage());
        } else if (failure instanceof UploadNotFoundException) {
            return new S3Exception(404, "NoSuchUpload", "The specified upload does not exist. The upload ID may be "
                    + "invalid, or the upload may have been aborted or completed.");
        } else if (failure instanceof InvalidPartException invalid) {
            return new S3Exception(400, invalid.reason().s3Code(), invalid.getMessage());
        } else if (failure instanceof PathOutsideMountException outside) {
            return S3Exception.invalidArgument(outside.getMessage());
        } else if (failure instanceof IllegalArgumentException invalid) {
            return S3Exception.invalidArgument(invalid.getMessage());
        } else if (failure instanceof ObjectChangedException changed) {
            return S3Exception.slowDown("the object changed in the under-store while being read; retry: "
                    + changed.getMessage());
        } else if (failure instanceof UnderStoreUnavailableException || failure instanceof ProcessingException) {
            return new S3Exception(503, "ServiceUnavailable", "a backing service is unavailable: " + failure.getMessage());
        } else if (failure instanceof AccessDeniedException denied) {
            return S3Exception.accessDenied("the under-store refused: " + denied.getMessage());
        } else if (failure instanceof UnderStoreException store) {
            return new S3Exception(503, "ServiceUnavailable", "the under-store failed: " + store.getMessage());
        } else if (failure instanceof WebApplicationException web && web.getResponse().getStatus() >= 500) {
            return new S3Exception(503, "ServiceUnavailable", "the metadata-service failed: " + web.getMessage());
        }
        LOG.errorf(failure, "S3 request failed");
        return S3Exception.internal("We encountered an internal error. Please try again.");
    }
}
