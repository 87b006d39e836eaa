package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.CorsRule;
import io.granary.contracts.bucket.PublicAccessBlock;
import io.granary.contracts.dataset.Dataset;
import io.granary.kit.config.GranaryConfig;
import io.vertx.core.Future;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/**
 * The service's and buckets' operations, each from an allowed request to its answer: listings, a bucket's creation
 * and deletion, and its settings (ACL, CORS rules, public access block).
 */
@ApplicationScoped
class BucketHandlers {

    private final Authenticator authenticator;
    private final Targets targets;
    private final BucketOps buckets;
    private final DatasetBuckets datasetBuckets;
    private final String region;

    BucketHandlers(Authenticator authenticator, Targets targets, BucketOps buckets, DatasetBuckets datasetBuckets,
                   GranaryConfig shared) {
        this.authenticator = authenticator;
        this.targets = targets;
        this.buckets = buckets;
        this.datasetBuckets = datasetBuckets;
        this.region = shared.region();
    }

    Future<?> listBuckets(S3Call call) {
        return call.blocking(() -> buckets.listBuckets(call.caller(), call.request())).compose(call::ok);
    }

    Future<?> head(S3Call call) {
        return call.blocking(() -> targets.dataset(call.request())).compose(d -> call.response().end());
    }

    Future<?> create(S3Call call) {
        S3Request request = call.request();
        return XmlBodies.read(request.http(), DatasetBuckets.MAX_CONFIGURATION, "the CreateBucketConfiguration")
                .compose(configuration -> call.blocking(() -> {
                    Acl acl = Acls.fromHeaders(request, call.caller().name(), call.caller().name(),
                            authenticator::known).orElse(Acl.privateTo(call.caller().name()));
                    datasetBuckets.create(call.caller(), request.bucket(), configuration, region, acl);
                    return true;
                }))
                .compose(done -> call.response().putHeader("Location", "/" + request.bucket()).end());
    }

    Future<?> delete(S3Call call) {
        return call.blocking(() -> {
            datasetBuckets.delete(call.caller(), targets.dataset(call.request()));
            return true;
        }).compose(done -> call.response().setStatusCode(204).end());
    }

    Future<?> location(S3Call call) {
        return call.blocking(() -> targets.dataset(call.request())).compose(d -> call.ok(buckets.location(region)));
    }

    Future<?> listObjectsV2(S3Call call) {
        return call.blocking(() -> buckets.listV2(call.request(), targets.dataset(call.request()))).compose(call::ok);
    }

    Future<?> listObjects(S3Call call) {
        return call.blocking(() -> buckets.listV1(call.request(), targets.dataset(call.request()))).compose(call::ok);
    }

    Future<?> listObjectVersions(S3Call call) {
        return call.blocking(() -> buckets.listVersions(call.request(), targets.dataset(call.request())))
                .compose(call::ok);
    }

    Future<?> getAcl(S3Call call) {
        return call.blocking(() -> Acls.policy(Acls.ofBucket(targets.dataset(call.request())))).compose(call::ok);
    }

    Future<?> putAcl(S3Call call) {
        S3Request request = call.request();
        return XmlBodies.read(request.http(), Acls.MAX_POLICY, "the AccessControlPolicy")
                .compose(body -> call.blocking(() -> {
                    Dataset dataset = targets.dataset(request);
                    String owner = Acls.bucketOwner(dataset);
                    Acl acl = Acls.requested(request, body, owner, owner, authenticator::known);
                    Permissions.checkMayGrant(dataset, acl);
                    return datasetBuckets.updateSettings(dataset, settings -> settings.withAcl(acl));
                }))
                .compose(done -> call.response().end());
    }

    Future<?> getCors(S3Call call) {
        return call.blocking(() -> Cors.rules(targets.dataset(call.request())).map(Cors::document)
                        .orElseThrow(() -> new S3Exception(404, "NoSuchCORSConfiguration",
                                "The CORS configuration does not exist")))
                .compose(call::ok);
    }

    Future<?> putCors(S3Call call) {
        return XmlBodies.read(call.request().http(), Cors.MAX_CONFIGURATION, "the CORSConfiguration")
                .compose(body -> call.blocking(() -> {
                    List<CorsRule> rules = Cors.parse(body);
                    return datasetBuckets.updateSettings(targets.dataset(call.request()),
                            settings -> settings.withCors(rules));
                }))
                .compose(done -> call.response().end());
    }

    Future<?> deleteCors(S3Call call) {
        return call.blocking(() -> datasetBuckets.updateSettings(targets.dataset(call.request()),
                        settings -> settings.withCors(null)))
                .compose(done -> call.response().setStatusCode(204).end());
    }

    Future<?> getPublicAccessBlock(S3Call call) {
        return call.blocking(() -> Permissions.publicAccessBlock(targets.dataset(call.request()))
                        .map(PublicAccess::document)
                        .orElseThrow(() -> new S3Exception(404, "NoSuchPublicAccessBlockConfiguration",
                                "The public access block configuration was not found")))
                .compose(call::ok);
    }

    Future<?> putPublicAccessBlock(S3Call call) {
        return XmlBodies.read(call.request().http(), PublicAccess.MAX_CONFIGURATION,
                        "the PublicAccessBlockConfiguration")
                .compose(body -> call.blocking(() -> {
                    PublicAccessBlock block = PublicAccess.parse(body);
                    return datasetBuckets.updateSettings(targets.dataset(call.request()),
                            settings -> settings.withPublicAccessBlock(block));
                }))
                .compose(done -> call.response().end());
    }

    Future<?> deletePublicAccessBlock(S3Call call) {
        return call.blocking(() -> datasetBuckets.updateSettings(targets.dataset(call.request()),
                        settings -> settings.withPublicAccessBlock(null)))
                .compose(done -> call.response().setStatusCode(204).end());
    }
}
