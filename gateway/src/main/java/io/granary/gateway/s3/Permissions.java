package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.bucket.Grant;
import io.granary.contracts.bucket.PublicAccessBlock;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.gateway.client.NearCache;
import io.granary.kit.security.Caller;
import io.granary.kit.security.Role;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * Who may make an S3 request. Roles first: an identity's role over the datasets it may touch decides on its own,
 * on the event loop, and is what nearly every request meets. A request the roles do not allow is then judged as
 * S3 judges it: the bucket's owner (the identity that created it) may do anything to it, and its ACL and its
 * objects' ACLs grant the rest, to identities by name, to anyone signed in, or to anyone at all (the anonymous
 * caller reaches nothing else). Blocking: the bucket, and the object for an object's permission, are looked up.
 */
@ApplicationScoped
public class Permissions {

    private final NearCache near;

    Permissions(NearCache near) {
        this.near = near;
    }

    /**
     * Whether the caller's role allows the request without asking any ACL: a reader lists and reads, a writer
     * also writes and deletes, an admin also makes, deletes and configures buckets; each only in the datasets it
     * may touch. The anonymous caller has no role.
     */
    static boolean byRole(Caller caller, String bucket, S3Operation operation) {
        if (caller == Authenticator.ANONYMOUS) {
            return false;
        }
        Role needs = switch (operation) {
            case PUT_OBJECT, COPY_OBJECT, CREATE_MULTIPART_UPLOAD, UPLOAD_PART, UPLOAD_PART_COPY,
                 COMPLETE_MULTIPART_UPLOAD, ABORT_MULTIPART_UPLOAD, DELETE_OBJECT, DELETE_OBJECTS,
                 PUT_OBJECT_ACL -> Role.WRITER;
            case CREATE_BUCKET, DELETE_BUCKET, PUT_BUCKET_ACL, PUT_BUCKET_CORS, DELETE_BUCKET_CORS,
                 PUT_PUBLIC_ACCESS_BLOCK, DELETE_PUBLIC_ACCESS_BLOCK, GET_PUBLIC_ACCESS_BLOCK -> Role.ADMIN;
            default -> Role.READER;
        };
        if (operation == S3Operation.CREATE_BUCKET || operation == S3Operation.LIST_BUCKETS) {
            return caller.role().allows(needs);  // a scoped admin's new bucket is its own; a listing is filtered
        }
        return caller.role().allows(needs) && caller.mayTouch(bucket);
    }

    /**
     * Throws unless the bucket's owner or an ACL allows the request: AccessDenied, or NoSuchBucket and NoSuchKey
     * where S3 tells them (a missing object to one who may list the bucket).
     */
    void check(Caller caller, S3Request request, S3Operation operation) {
        if (operation == S3Operation.LIST_BUCKETS) {
            return;  // everyone lists the buckets they may touch: the anonymous, none
        }
        if (operation == S3Operation.CREATE_BUCKET || operation == S3Operation.UNSUPPORTED
                || operation == S3Operation.UNKNOWN) {
            throw denied();  // a bucket is made by an admin's role alone (byRole), never by an ACL
        }
        Dataset dataset = near.dataset(request.bucket()).orElseThrow(() -> S3Exception.noSuchBucket(request.bucket()));
        String expected = request.header("x-amz-expected-bucket-owner");
        if (expected != null && !expected.equals(Acls.bucketOwner(dataset))) {
            throw denied();
        }
        if (byRole(caller, request.bucket(), operation)) {
            return;
        }
        Grant.Permission needed = switch (operation) {
            case GET_BUCKET_ACL, GET_OBJECT_ACL -> Grant.Permission.READ_ACP;
            case PUT_BUCKET_ACL, PUT_OBJECT_ACL -> Grant.Permission.WRITE_ACP;
            case PUT_OBJECT, COPY_OBJECT, CREATE_MULTIPART_UPLOAD, UPLOAD_PART, UPLOAD_PART_COPY,
                 COMPLETE_MULTIPART_UPLOAD, ABORT_MULTIPART_UPLOAD, DELETE_OBJECT, DELETE_OBJECTS -> Grant.Permission.WRITE;
            default -> Grant.Permission.READ;
        };
        boolean onObject = operation == S3Operation.GET_OBJECT || operation == S3Operation.HEAD_OBJECT
                || operation == S3Operation.GET_OBJECT_ACL || operation == S3Operation.PUT_OBJECT_ACL;
        if (onObject) {
            Optional<FileInfo> file = near.file(dataset.name(), request.key());
            if (file.isEmpty()) {
                if (allows(caller, dataset, Acls.ofBucket(dataset), Grant.Permission.READ)) {
                    throw S3Exception.noSuchKey(request.key());
                }
                throw denied();
            }
            if (!allows(caller, dataset, Acls.ofObject(file.get(), dataset), needed)) {
                throw denied();
            }
            return;
        }
        boolean ownerOnly = switch (operation) {
            case DELETE_BUCKET, GET_BUCKET_CORS, PUT_BUCKET_CORS, DELETE_BUCKET_CORS, GET_PUBLIC_ACCESS_BLOCK,
                 PUT_PUBLIC_ACCESS_BLOCK, DELETE_PUBLIC_ACCESS_BLOCK -> true;
            default -> false;
        };
        if (ownerOnly ? !owns(caller, Acls.ofBucket(dataset)) : !allows(caller, dataset, Acls.ofBucket(dataset), needed)) {
            throw denied();
        }
    }

    /** Whether the caller may read an object by its ACL (a copy's source), its role aside. */
    boolean mayRead(Caller caller, Dataset dataset, FileInfo file) {
        return allows(caller, dataset, Acls.ofObject(file, dataset), Grant.Permission.READ);
    }

    /** The owner always reads and writes the ACL itself; the grants decide the rest, public ones unless ignored. */
    private static boolean allows(Caller caller, Dataset dataset, Acl acl, Grant.Permission needed) {
        if (owns(caller, acl) && (needed == Grant.Permission.READ_ACP || needed == Grant.Permission.WRITE_ACP)) {
            return true;
        }
        boolean ignorePublic = publicAccessBlock(dataset).map(PublicAccessBlock::ignorePublicAcls).orElse(false);
        for (Grant grant : acl.grants()) {
            if (!grant.permission().covers(needed)) {
                continue;
            }
            boolean matches = grant.user() != null
                    ? caller != Authenticator.ANONYMOUS && grant.user().equals(caller.name())
                    : !ignorePublic && (grant.group().equals(Grant.ALL_USERS) || caller != Authenticator.ANONYMOUS);
            if (matches) {
                return true;
            }
        }
        return false;
    }

    private static boolean owns(Caller caller, Acl acl) {
        return caller != Authenticator.ANONYMOUS && acl.owner().equals(caller.name());
    }

    /** Whether the caller owns the bucket. */
    static boolean ownsBucket(Caller caller, Dataset dataset) {
        return owns(caller, Acls.ofBucket(dataset));
    }

    /** S3 refuses a public ACL where the bucket blocks them. */
    static void checkMayGrant(Dataset dataset, Acl acl) {
        if (acl.isPublic() && publicAccessBlock(dataset).map(PublicAccessBlock::blockPublicAcls).orElse(false)) {
            throw denied();
        }
    }

    static Optional<PublicAccessBlock> publicAccessBlock(Dataset dataset) {
        BucketSettings settings = dataset.spec().bucket();
        return Optional.ofNullable(settings == null ? null : settings.publicAccessBlock());
    }

    private static S3Exception denied() {
        return S3Exception.accessDenied("Access Denied");
    }
}
