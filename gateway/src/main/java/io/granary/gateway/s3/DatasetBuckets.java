package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.security.Caller;
import io.granary.ufs.MountedStores;
import io.granary.ufs.UnderStoreException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;
import org.w3c.dom.Element;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * CreateBucket and DeleteBucket: a bucket an S3 client makes is a dataset over a place of its own under the
 * configured under-store ({@code granary.gateway.buckets.uri}), created and deleted through the metadata-service
 * for the caller, so its roles, audit, events and caching apply as to any dataset. Blocking: call off the event
 * loop.
 */
@ApplicationScoped
public class DatasetBuckets {

    private static final Logger LOG = Logger.getLogger(DatasetBuckets.class);
    /** The most a CreateBucketConfiguration may hold. */
    static final int MAX_CONFIGURATION = 64 * 1024;
    private static final long POLL_MILLIS = 20;
    private static final String US_EAST_1 = "us-east-1";

    private final MetadataClient metadata;
    private final NearCache near;
    private final MountedStores stores;
    private final GatewayConfig.Buckets config;

    DatasetBuckets(@RestClient MetadataClient metadata, NearCache near, MountedStores stores, GatewayConfig config) {
        this.metadata = metadata;
        this.near = near;
        this.stores = stores;
        this.config = config.buckets();
    }

    /**
     * Makes the bucket's place in the under-store and its dataset, and answers once the dataset is Bound.
     *
     * @param configuration the request's CreateBucketConfiguration, empty when it sent none
     * @param region        this gateway's region: the only LocationConstraint it can satisfy
     */
    void create(Caller caller, String bucket, byte[] configuration, String region, Acl acl) {
        String base = config.uri().orElseThrow(() -> S3Exception.notImplemented(
                "CreateBucket (no granary.gateway.buckets.uri is set: create datasets through the management API)"));
        checkName(bucket);
        checkLocation(configuration, region);
        Optional<Dataset> existing = metadata.findDataset(bucket);
        if (existing.isPresent()) {
            if (US_EAST_1.equals(region) && Permissions.ownsBucket(caller, existing.get())) {
                return;  // as S3 answers there: creating a bucket you own already succeeds and changes nothing
            }
            throw alreadyThere(caller, existing.get());
        }
        Mount mount = new Mount(place(base, bucket), null, config.options(), config.credentialsRef().orElse(null));
        try {
            stores.create(mount);
        } catch (UnderStoreException e) {
            LOG.errorf("CreateBucket %s: %s", bucket, e.getMessage());
            throw S3Exception.internal("The bucket's place in the under-store could not be made.");
        }
        try {
            // An admin of every dataset creates as itself; one of some datasets creates, as S3 lets anyone, a bucket
            // of its own, which its roles do not reach (its ownership does): the gateway creates that one.
            metadata.create(caller.unscoped() ? caller.name() : null, new DatasetSpec(bucket, List.of(mount), null,
                    null, Map.of(), null, null, new BucketSettings(acl, null, null)));
        } catch (WebApplicationException e) {
            throw switch (e.getResponse().getStatus()) {
                case 409 -> metadata.findDataset(bucket).map(d -> alreadyThere(caller, d))
                        .orElseGet(() -> alreadyThere(caller, null));
                case 400 -> invalidName(bucket, e.getMessage());
                case 401, 403 -> S3Exception.accessDenied("Access Denied");
                default -> e;
            };
        }
        near.forgetDataset(bucket);  // it may be remembered as absent
        awaitBound(bucket);
    }

    /** Deletes the bucket's dataset, and the place CreateBucket made for it, if it holds no object. */
    void delete(Caller caller, Dataset dataset) {
        for (Mount mount : dataset.spec().mounts()) {
            if (!stores.store(mount).list("", null, null, 1).objects().isEmpty()) {
                throw new S3Exception(409, "BucketNotEmpty", "The bucket you tried to delete is not empty");
            }
        }
        try {
            metadata.delete(Permissions.byRole(caller, dataset.name(), S3Operation.DELETE_BUCKET) ? caller.name() : null,
                    dataset.name());
        } catch (WebApplicationException e) {
            throw switch (e.getResponse().getStatus()) {
                case 404 -> S3Exception.noSuchBucket(dataset.name());
                case 401, 403 -> S3Exception.accessDenied("Access Denied");
                default -> e;
            };
        }
        near.forgetDataset(dataset.name());
        config.uri().ifPresent(base -> dataset.spec().mounts().stream()
                .filter(mount -> mount.uri().equals(place(base, dataset.name())))
                .forEach(this::removePlace));
    }

    /** Changes the bucket's settings; every gateway forgets the dataset on the UPDATED event, this one at once. */
    Dataset updateSettings(Dataset dataset, UnaryOperator<BucketSettings> change) {
        BucketSettings current = dataset.spec().bucket() != null ? dataset.spec().bucket()
                : new BucketSettings(null, null, null);
        try {
            return metadata.updateBucket(dataset.name(), change.apply(current));
        } catch (WebApplicationException e) {
            if (e.getResponse().getStatus() == 404) {
                throw S3Exception.noSuchBucket(dataset.name());
            }
            throw e;
        } finally {
            near.forgetDataset(dataset.name());
        }
    }

    private void removePlace(Mount mount) {
        try {
            stores.remove(mount);
        } catch (UnderStoreException e) {
            // The bucket is gone either way; an empty directory left behind is reused if the name comes back.
            LOG.warnf("DeleteBucket: %s", e.getMessage());
        }
    }

    /** Where a bucket lives under the base: a directory or prefix named after it. */
    static String place(String base, String bucket) {
        return base.replaceAll("/+$", "") + "/" + bucket;
    }

    /** S3's rules for new bucket names, narrowed to a dataset's (a DNS label: no dots). */
    static void checkName(String bucket) {
        try {
            Check.datasetName("bucket", bucket);
        } catch (ValidationException e) {
            throw invalidName(bucket, e.getMessage());
        }
    }

    private static S3Exception invalidName(String bucket, String why) {
        return new S3Exception(400, "InvalidBucketName", "The specified bucket is not valid: '" + bucket
                + "' must be 3 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit"
                + " (a bucket is a dataset, whose name is a DNS label)" + (why == null ? "" : "; " + why));
    }

    private static S3Exception alreadyThere(Caller caller, Dataset existing) {
        return existing != null && Permissions.ownsBucket(caller, existing)
                ? new S3Exception(409, "BucketAlreadyOwnedByYou",
                "Your previous request to create the named bucket succeeded and you already own it.")
                : new S3Exception(409, "BucketAlreadyExists", "The requested bucket name is not available.");
    }

    private static void checkLocation(byte[] configuration, String region) {
        if (configuration.length == 0) {
            return;
        }
        Element root = XmlBodies.root(configuration, "CreateBucketConfiguration");
        String location = XmlBodies.text(root, "LocationConstraint");
        if (location != null && !location.isEmpty() && !location.equals(region)) {
            throw new S3Exception(400, "InvalidLocationConstraint", "The specified location-constraint is not valid: "
                    + "this endpoint keeps buckets in '" + region + "' only, not '" + location + "'");
        }
    }

    /** A new bucket's metadata is listed at once (it is empty): its first write must not race the listing. */
    private void awaitBound(String bucket) {
        long deadline = System.nanoTime() + config.bindTimeout().toNanos();
        while (true) {
            Optional<Dataset> dataset = metadata.findDataset(bucket);
            DatasetPhase phase = dataset.map(d -> d.status() == null ? null : d.status().phase()).orElse(null);
            if (phase == DatasetPhase.BOUND) {
                return;
            }
            if (phase == DatasetPhase.FAILED || dataset.isEmpty() || System.nanoTime() > deadline) {
                String reason = dataset.map(d -> d.status().reason()).orElse("it is gone");
                LOG.errorf("CreateBucket %s: the dataset is not Bound: %s", bucket, reason);
                throw new S3Exception(503, "ServiceUnavailable", "The bucket was created but its dataset is not ready"
                        + " (" + (phase == null ? "gone" : phase.name().toLowerCase()) + "); retry shortly.");
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw S3Exception.internal("interrupted while the bucket was made");
            }
        }
    }
}
