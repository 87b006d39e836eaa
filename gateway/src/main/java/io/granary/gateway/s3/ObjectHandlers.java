package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.s3.Targets.Resolved;
import io.granary.gateway.write.ObjectWrites;
import io.granary.kit.security.Caller;
import io.granary.ufs.ObjectMetadata;
import io.granary.ufs.ObjectNotFoundException;
import io.vertx.core.Future;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The objects' operations, each from an allowed request to its answer: reads, writes, copies, multipart uploads,
 * deletes and an object's ACL.
 */
@ApplicationScoped
class ObjectHandlers {

    private final Authenticator authenticator;
    private final Permissions permissions;
    private final NearCache near;
    private final Targets targets;
    private final ObjectOps objects;
    private final ObjectWrites writes;

    ObjectHandlers(Authenticator authenticator, Permissions permissions, NearCache near, Targets targets,
                   ObjectOps objects, ObjectWrites writes) {
        this.authenticator = authenticator;
        this.permissions = permissions;
        this.near = near;
        this.targets = targets;
        this.objects = objects;
        this.writes = writes;
    }

    /** GetObject and HeadObject. */
    Future<?> get(S3Call call) {
        return targets.resolve(call).compose(resolved -> objects.get(call.request(), resolved.dataset(),
                resolved.file()));
    }

    Future<?> put(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> {
                    Dataset dataset = targets.writableIf(request);
                    return new Target(dataset, withAcl(call, dataset, metadata(request)));
                })
                .compose(target -> writes.put(request.http(), call.principal(), target.dataset(), request.key(),
                        target.metadata()))
                .compose(written -> call.response().putHeader("ETag", S3Responses.etag(written.etag())).end());
    }

    Future<?> copy(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> {
                    Copy copy = new Copy(copySource(call.caller(), request), targets.writable(request));
                    copy.refuseOntoItself(request);
                    Map<String, String> metadata = "REPLACE".equals(request.header("x-amz-metadata-directive"))
                            ? metadata(request)
                            : writes.metadataNow(copy.source().dataset(), copy.source().file().path());
                    return new CopyTo(copy, withAcl(call, copy.target(), metadata));
                })
                .compose(copy -> writes.copy(copy.copy().source().dataset(), copy.copy().source().file(),
                        copy.copy().target(), request.key(), copy.metadata()))
                .compose(file -> call.ok(copyResult("CopyObjectResult", file.etag(), file.mtime())));
    }

    Future<?> uploadPartCopy(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> new Copy(copySource(call.caller(), request), targets.writable(request)))
                .compose(copy -> {
                    FileInfo from = copy.source().file();
                    CopySource.Range range = CopySource.range(request.header("x-amz-copy-source-range"), from.size());
                    return writes.copyPart(copy.source().dataset(), from, range.first(), range.length(),
                            copy.target(), request.key(), request.param("uploadId"), request.partNumber());
                })
                .compose(etag -> call.ok(copyResult("CopyPartResult", etag, Instant.now())));
    }

    Future<?> uploadPart(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> targets.writable(request))
                .compose(dataset -> writes.uploadPart(request.http(), call.principal(), dataset, request.key(),
                        request.param("uploadId"), request.partNumber()))
                .compose(etag -> call.response().putHeader("ETag", S3Responses.etag(etag)).end());
    }

    Future<?> createMultipartUpload(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> {
            Dataset dataset = targets.writable(request);
            return Multipart.initiated(dataset.name(), request.key(), writes.createUpload(dataset, request.key(),
                    withAcl(call, dataset, metadata(request))));
        }).compose(call::ok);
    }

    Future<?> completeMultipartUpload(S3Call call) {
        S3Request request = call.request();
        return Multipart.readParts(request.http())
                .compose(parts -> call.blocking(() -> writes.completeUpload(targets.writableIf(request),
                        request.key(), request.param("uploadId"), parts)))
                .compose(done -> call.ok(Multipart.completed(request, done)));
    }

    Future<?> abortMultipartUpload(S3Call call) {
        S3Request request = call.request();
        return call.blocking(() -> {
            writes.abortUpload(targets.writable(request), request.key(), request.param("uploadId"));
            return true;
        }).compose(done -> call.response().setStatusCode(204).end());
    }

    Future<?> delete(S3Call call) {
        return call.blocking(() -> {
            writes.delete(targets.writable(call.request()), call.request().key());
            return true;
        }).compose(done -> call.response().setStatusCode(204).end());
    }

    Future<?> deleteObjects(S3Call call) {
        return MultiDelete.read(call.request().http())
                .compose(asked -> call.blocking(() -> {
                    Dataset dataset = targets.writable(call.request());
                    List<MultiDelete.Outcome> outcomes = new ArrayList<>(asked.keys().size());
                    asked.keys().forEach(key -> outcomes.add(deleteOne(dataset, key)));
                    return MultiDelete.result(asked, outcomes);
                }))
                .compose(call::ok);
    }

    Future<?> getAcl(S3Call call) {
        return targets.resolve(call)
                .compose(resolved -> call.ok(Acls.policy(Acls.ofObject(resolved.file(), resolved.dataset()))));
    }

    Future<?> putAcl(S3Call call) {
        S3Request request = call.request();
        return XmlBodies.read(request.http(), Acls.MAX_POLICY, "the AccessControlPolicy")
                .compose(body -> call.blocking(() -> {
                    Dataset dataset = targets.dataset(request);
                    FileInfo file = objects.file(dataset, request.key());
                    Acl acl = Acls.requested(request, body, Acls.ofObject(file, dataset).owner(),
                            Acls.bucketOwner(dataset), authenticator::known);
                    Permissions.checkMayGrant(dataset, acl);
                    Map<String, String> stored = writes.metadataNow(dataset, file.path());
                    return writes.replaceMetadata(dataset, file, Acls.withAcl(stored, acl, Acls.bucketOwner(dataset)));
                }))
                .compose(done -> call.response().end());
    }

    /** One key of a DeleteObjects: deleted, already gone (as S3 says: deleted), or failed on its own. */
    private MultiDelete.Outcome deleteOne(Dataset dataset, String key) {
        try {
            writes.delete(dataset, key);
        } catch (ObjectNotFoundException gone) {
            // deleting what is not there succeeds
        } catch (RuntimeException failure) {
            return new MultiDelete.Outcome(key, S3Errors.translate(failure));
        }
        return new MultiDelete.Outcome(key, null);
    }

    /** Where a write goes, and the metadata it keeps. */
    private record Target(Dataset dataset, Map<String, String> metadata) {
    }

    /** A copy, and the metadata its object keeps. */
    private record CopyTo(Copy copy, Map<String, String> metadata) {
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

    /**
     * The metadata a write keeps, with the ACL it asks for (private by default) owned by the writer; a public one
     * is refused where the bucket blocks them.
     */
    private Map<String, String> withAcl(S3Call call, Dataset dataset, Map<String, String> metadata) {
        String bucketOwner = Acls.bucketOwner(dataset);
        Caller caller = call.caller();
        Acl acl = Acls.fromHeaders(call.request(), caller.name(), bucketOwner, authenticator::known)
                .orElse(Acl.privateTo(caller.name()));
        Permissions.checkMayGrant(dataset, acl);
        return Acls.withAcl(metadata, acl, bucketOwner);
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
}
