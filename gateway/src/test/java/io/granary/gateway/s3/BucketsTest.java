package io.granary.gateway.s3;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.devstack.testing.TempDirs;
import io.granary.gateway.GatewayStack;
import io.granary.ufs.ObjectMetadata;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Buckets as S3 clients make them, through the AWS SDK: each a dataset over a directory of its own under
 * {@code granary.gateway.buckets.uri} (here the local root), made and deleted through the metadata-service, with
 * ETags that mean what clients take them for, and objects copied server-side (CopyObject, UploadPartCopy).
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BucketsTest {

    private static final int MIB = 1 << 20;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path s3Buckets;

    @ConfigProperty(name = "granary.gateway.spool-dir")
    Path spool;

    private S3Client admin;

    @BeforeAll
    void setUp() {
        RestAssuredAuth.asCluster();
        admin = SdkClients.of(gateway, Identities.ADMIN);
    }

    @AfterAll
    void tearDown() {
        admin.close();
    }

    @Test
    void aBucketIsADatasetFromCreationToDeletion() {
        admin.createBucket(create -> create.bucket("fresh-bucket"));

        Path directory = localRoot.resolve("buckets/fresh-bucket");
        assertThat(directory).as("a directory of its own under the configured root").isDirectory();
        given().get(gateway.resolve("/api/v1/datasets/fresh-bucket")).then().statusCode(200)
                .body("status.phase", org.hamcrest.Matchers.equalTo("Bound"))
                .body("spec.mounts[0].uri", org.hamcrest.Matchers.equalTo("file://" + directory));
        admin.headBucket(head -> head.bucket("fresh-bucket"));
        assertThat(admin.listBuckets().buckets()).extracting(Bucket::name).contains("fresh-bucket");
        assertThat(admin.getBucketLocation(location -> location.bucket("fresh-bucket")).locationConstraintAsString())
                .isEmpty();
        admin.createBucket(create -> create.bucket("fresh-bucket"));  // us-east-1: yours already, so a no-op

        admin.putObject(put -> put.bucket("fresh-bucket").key("dir/a.txt"), RequestBody.fromString("a"));
        assertThat(directory.resolve("dir/a.txt")).hasContent("a");
        assertThat(admin.listObjectVersions(list -> list.bucket("fresh-bucket")).versions())
                .as("one version each, as S3 lists an unversioned bucket").singleElement().satisfies(version -> {
                    assertThat(version.key()).isEqualTo("dir/a.txt");
                    assertThat(version.versionId()).isEqualTo("null");
                    assertThat(version.isLatest()).isTrue();
                });
        assertError(() -> admin.deleteBucket(delete -> delete.bucket("fresh-bucket")), 409, "BucketNotEmpty");

        admin.deleteObject(delete -> delete.bucket("fresh-bucket").key("dir/a.txt"));
        admin.deleteBucket(delete -> delete.bucket("fresh-bucket"));
        assertError(() -> admin.headBucket(head -> head.bucket("fresh-bucket")), 404, null);
        given().get(gateway.resolve("/api/v1/datasets/fresh-bucket")).then().statusCode(404);
        assertThat(directory).as("the place CreateBucket made goes with it").doesNotExist();
        assertError(() -> admin.deleteBucket(delete -> delete.bucket("fresh-bucket")), 404, "NoSuchBucket");
    }

    @Test
    void whatABucketCannotBeIsRefusedAsS3Refuses() throws Exception {
        assertError(() -> admin.createBucket(create -> create.bucket("dotted.name")), 400, "InvalidBucketName");
        for (String bad : List.of("ab", "Upper-Case", "under_score", "dash-at-end-", "a".repeat(64))) {
            // names the SDK would refuse to send
            HttpResponse<String> answer = Signed.send(gateway, "PUT", "/" + bad, new byte[0]);
            assertThat(answer.statusCode()).as(bad).isEqualTo(400);
            assertThat(answer.body()).as(bad).contains("<Code>InvalidBucketName</Code>");
        }
        assertError(() -> admin.createBucket(create -> create.bucket("far-away")
                .createBucketConfiguration(c -> c.locationConstraint("eu-west-1"))), 400, "InvalidLocationConstraint");
        try (S3Client writer = SdkClients.of(gateway, Identities.WRITER)) {
            assertError(() -> writer.createBucket(create -> create.bucket("writers-bucket")), 403, "AccessDenied");
        }
        assertThat(localRoot.resolve("buckets/far-away")).doesNotExist();
        assertThat(localRoot.resolve("buckets/writers-bucket")).doesNotExist();

        admin.createBucket(create -> create.bucket("taken"));
        try (S3Client writer = SdkClients.of(gateway, Identities.WRITER)) {
            admin.putObject(put -> put.bucket("taken").key("k"), RequestBody.fromString("v"));
            assertError(() -> writer.deleteBucket(delete -> delete.bucket("taken")), 403, "AccessDenied");
        }
        assertThat(admin.getObjectAsBytes(get -> get.bucket("taken").key("k")).asUtf8String()).isEqualTo("v");
    }

    @Test
    void etagsAreTheMd5OfWhatWasWrittenAndNeverLookLikeOneOtherwise() throws Exception {
        admin.createBucket(create -> create.bucket("etags"));
        byte[] single = bytes(new Random(1), 100_000);
        String etag = admin.putObject(put -> put.bucket("etags").key("single"), RequestBody.fromBytes(single)).eTag();
        assertThat(etag).isEqualTo(quoted(md5(single)));
        assertThat(admin.headObject(head -> head.bucket("etags").key("single")).eTag()).isEqualTo(etag);
        assertThat(admin.listObjectsV2(list -> list.bucket("etags")).contents().get(0).eTag()).isEqualTo(etag);

        String key = "multi";
        String uploadId = admin.createMultipartUpload(create -> create.bucket("etags").key(key)).uploadId();
        Random random = new Random(2);
        MessageDigest partMd5s = MessageDigest.getInstance("MD5");
        List<CompletedPart> parts = new ArrayList<>();
        for (int number = 1; number <= 2; number++) {
            byte[] part = bytes(random, number == 1 ? 5 * MIB : 1234);
            partMd5s.update(MessageDigest.getInstance("MD5").digest(part));
            int n = number;
            String partEtag = admin.uploadPart(upload -> upload.bucket("etags").key(key).uploadId(uploadId)
                    .partNumber(n), RequestBody.fromBytes(part)).eTag();
            assertThat(partEtag).isEqualTo(quoted(md5(part)));
            parts.add(CompletedPart.builder().partNumber(number).eTag(partEtag).build());
        }
        String multipart = quoted(HexFormat.of().formatHex(partMd5s.digest()) + "-2");
        assertThat(admin.completeMultipartUpload(complete -> complete.bucket("etags").key(key).uploadId(uploadId)
                .multipartUpload(upload -> upload.parts(parts))).eTag()).isEqualTo(multipart);
        assertThat(admin.headObject(head -> head.bucket("etags").key(key)).eTag()).isEqualTo(multipart);

        // A file put in the directory behind Granary's back: its ETag is a version tag, no MD5 of anything.
        Files.write(localRoot.resolve("buckets/etags/placed"), single);
        given().contentType("application/json").post(gateway.resolve("/api/v1/datasets/etags/sync")).then().statusCode(202);
        Datasets.awaitBound(gateway, "etags");
        String placed = admin.headObject(head -> head.bucket("etags").key("placed")).eTag();
        assertThat(placed).matches("\"[0-9a-f]{32}-0\"").isNotEqualTo(quoted(md5(single) + "-0"));
        assertThat(admin.getObjectAsBytes(get -> get.bucket("etags").key("placed")).asByteArray()).isEqualTo(single);
    }

    @Test
    void copiesAreMadeServerSideAndReadBackByteForByte() throws Exception {
        admin.createBucket(create -> create.bucket("copies"));
        byte[] content = bytes(new Random(3), 3 * MIB + 17);
        String etag = admin.putObject(put -> put.bucket("copies").key("src"), RequestBody.fromBytes(content)).eTag();

        var copied = admin.copyObject(copy -> copy.sourceBucket("copies").sourceKey("src")
                .destinationBucket("copies").destinationKey("dst/copy"));
        assertThat(copied.copyObjectResult().eTag()).isEqualTo(etag);
        assertThat(admin.getObjectAsBytes(get -> get.bucket("copies").key("dst/copy")).asByteArray()).isEqualTo(content);
        assertThat(localRoot.resolve("buckets/copies/dst/copy")).hasBinaryContent(content);

        admin.createBucket(create -> create.bucket("copies-elsewhere"));
        admin.copyObject(copy -> copy.sourceBucket("copies").sourceKey("src").copySourceIfMatch(etag)
                .destinationBucket("copies-elsewhere").destinationKey("odd name + 100%"));
        assertThat(admin.getObjectAsBytes(get -> get.bucket("copies-elsewhere").key("odd name + 100%")).asByteArray())
                .isEqualTo(content);

        assertError(() -> admin.copyObject(copy -> copy.sourceBucket("copies").sourceKey("src")
                .destinationBucket("copies").destinationKey("src")), 400, "InvalidRequest");
        assertError(() -> admin.copyObject(copy -> copy.sourceBucket("copies").sourceKey("src")
                .copySourceIfNoneMatch(etag).destinationBucket("copies").destinationKey("x")), 412, "PreconditionFailed");
        assertError(() -> admin.copyObject(copy -> copy.sourceBucket("copies").sourceKey("absent")
                .destinationBucket("copies").destinationKey("x")), 404, "NoSuchKey");
        assertError(() -> admin.copyObject(copy -> copy.sourceBucket("no-such-bucket").sourceKey("src")
                .destinationBucket("copies").destinationKey("x")), 404, "NoSuchBucket");
        try (S3Client teamA = SdkClients.of(gateway, Identities.TEAM_A_WRITER)) {
            assertError(() -> teamA.copyObject(copy -> copy.sourceBucket("copies").sourceKey("src")
                    .destinationBucket("team-a").destinationKey("stolen")), 403, "AccessDenied");
        }
    }

    /** Metadata round trips on a bucket over a local directory and on a dataset over S3 alike. */
    @Test
    void metadataAndStandardHeadersAreKeptWithTheObjectAndCopied() throws Exception {
        admin.createBucket(create -> create.bucket("meta-local"));
        Files.createDirectories(s3Buckets.resolve("meta-s3"));
        Datasets.createBound(gateway, Datasets.spec("meta-s3", "1MiB", Datasets.s3Mount("meta-s3", s3Endpoint)));
        Map<String, String> user = Map.of("purpose", "training", "shard", "0007");
        for (String bucket : List.of("meta-local", "meta-s3")) {
            admin.putObject(put -> put.bucket(bucket).key("a.json").contentType("application/json")
                    .cacheControl("max-age=60").contentDisposition("attachment; filename=\"a.json\"")
                    .contentEncoding("identity").contentLanguage("en").expires(Instant.parse("2030-01-01T00:00:00Z"))
                    .metadata(user), RequestBody.fromString("{}"));
            HeadObjectResponse head = admin.headObject(h -> h.bucket(bucket).key("a.json"));
            assertThat(head.contentType()).as(bucket).isEqualTo("application/json");
            assertThat(head.cacheControl()).isEqualTo("max-age=60");
            assertThat(head.contentDisposition()).isEqualTo("attachment; filename=\"a.json\"");
            assertThat(head.contentEncoding()).isEqualTo("identity");
            assertThat(head.contentLanguage()).isEqualTo("en");
            assertThat(head.expires()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
            assertThat(head.metadata()).as(bucket).isEqualTo(user);
            GetObjectResponse got = admin.getObject(get -> get.bucket(bucket).key("a.json")
                    .responseContentType("text/plain")).response();
            assertThat(got.contentType()).as("what the GET asked for instead").isEqualTo("text/plain");
            assertThat(got.metadata()).isEqualTo(user);

            admin.copyObject(copy -> copy.sourceBucket(bucket).sourceKey("a.json").destinationBucket(bucket)
                    .destinationKey("copied.json"));
            assertThat(admin.headObject(h -> h.bucket(bucket).key("copied.json")).metadata()).as("COPY")
                    .isEqualTo(user);
            admin.copyObject(copy -> copy.sourceBucket(bucket).sourceKey("a.json").destinationBucket(bucket)
                    .destinationKey("a.json").metadataDirective(MetadataDirective.REPLACE)
                    .contentType("text/x-json").metadata(Map.of("purpose", "eval")));
            HeadObjectResponse replaced = admin.headObject(h -> h.bucket(bucket).key("a.json"));
            assertThat(replaced.contentType()).as("REPLACE onto itself").isEqualTo("text/x-json");
            assertThat(replaced.metadata()).isEqualTo(Map.of("purpose", "eval"));
            assertThat(replaced.cacheControl()).isNull();

            String uploadId = admin.createMultipartUpload(create -> create.bucket(bucket).key("parts.bin")
                    .contentType("application/x-tar").metadata(user)).uploadId();
            String etag = admin.uploadPart(upload -> upload.bucket(bucket).key("parts.bin").uploadId(uploadId)
                    .partNumber(1), RequestBody.fromString("part")).eTag();
            admin.completeMultipartUpload(complete -> complete.bucket(bucket).key("parts.bin").uploadId(uploadId)
                    .multipartUpload(upload -> upload.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
            HeadObjectResponse parts = admin.headObject(h -> h.bucket(bucket).key("parts.bin"));
            assertThat(parts.contentType()).as(bucket + " multipart").isEqualTo("application/x-tar");
            assertThat(parts.metadata()).isEqualTo(user);

            String big = "x".repeat(ObjectMetadata.MAX_USER_BYTES);
            assertError(() -> admin.putObject(put -> put.bucket(bucket).key("too-much").metadata(Map.of("big", big)),
                    RequestBody.fromString("")), 400, "MetadataTooLarge");
        }
        // A sync lists the objects again; a listing carries no metadata, and what was known is kept.
        given().contentType("application/json").post(gateway.resolve("/api/v1/datasets/meta-s3/sync")).then()
                .statusCode(202);
        Datasets.awaitBound(gateway, "meta-s3");
        assertThat(admin.headObject(h -> h.bucket("meta-s3").key("copied.json")).metadata()).isEqualTo(user);
    }

    /** A copy on a gateway that has spooled nothing yet (no spool directory): it makes the directory, not a 500. */
    @Test
    void aCopyIsTheFirstWriteAGatewaySpools() {
        admin.createBucket(create -> create.bucket("first-copies"));
        admin.putObject(put -> put.bucket("first-copies").key("a.txt"), RequestBody.fromString("first"));
        TempDirs.deleteQuietly(spool);  // as on a gateway just started, whose first write is this copy

        admin.copyObject(copy -> copy.sourceBucket("first-copies").sourceKey("a.txt")
                .destinationBucket("first-copies").destinationKey("b.txt"));

        assertThat(admin.getObjectAsBytes(get -> get.bucket("first-copies").key("b.txt")).asUtf8String())
                .isEqualTo("first");
    }

    /**
     * A source of 2 GiB and a bit, made sparse in the bucket's directory with a marker at the start of each GiB,
     * copied by UploadPartCopy in three ranges: the copy has the source's size, bytes at each seam, and S3's ETag.
     */
    @Test
    void aMultiGibObjectIsCopiedByUploadPartCopy() throws Exception {
        admin.createBucket(create -> create.bucket("big-copies"));
        long gib = 1L << 30;
        long size = 2 * gib + 4321;
        Path source = localRoot.resolve("buckets/big-copies/source.bin");
        long[] markers = {0, gib - 16, gib, 2 * gib, size - 16};
        try (RandomAccessFile file = new RandomAccessFile(source.toFile(), "rw")) {
            file.setLength(size);
            for (long at : markers) {
                file.seek(at);
                file.write(marker(at));
            }
        }
        given().contentType("application/json").post(gateway.resolve("/api/v1/datasets/big-copies/sync")).then().statusCode(202);
        Datasets.awaitBound(gateway, "big-copies");

        String uploadId = admin.createMultipartUpload(create -> create.bucket("big-copies").key("copy.bin")).uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        long[][] ranges = {{0, gib - 1}, {gib, 2 * gib - 1}, {2 * gib, size - 1}};
        for (int i = 0; i < ranges.length; i++) {
            long[] range = ranges[i];
            int number = i + 1;
            String partEtag = admin.uploadPartCopy(copy -> copy.sourceBucket("big-copies").sourceKey("source.bin")
                    .destinationBucket("big-copies").destinationKey("copy.bin").uploadId(uploadId).partNumber(number)
                    .copySourceRange("bytes=" + range[0] + "-" + range[1])).copyPartResult().eTag();
            parts.add(CompletedPart.builder().partNumber(number).eTag(partEtag).build());
        }
        assertError(() -> admin.uploadPartCopy(copy -> copy.sourceBucket("big-copies").sourceKey("source.bin")
                .destinationBucket("big-copies").destinationKey("copy.bin").uploadId(uploadId).partNumber(9)
                .copySourceRange("bytes=0-" + size)), 416, "InvalidRange");
        String etag = admin.completeMultipartUpload(complete -> complete.bucket("big-copies").key("copy.bin")
                .uploadId(uploadId).multipartUpload(upload -> upload.parts(parts))).eTag();

        assertThat(etag).matches("\"[0-9a-f]{32}-3\"");
        assertThat(admin.headObject(head -> head.bucket("big-copies").key("copy.bin")).contentLength()).isEqualTo(size);
        assertThat(Files.mismatch(source, localRoot.resolve("buckets/big-copies/copy.bin"))).isEqualTo(-1);
        for (long at : markers) {
            try (ResponseInputStream<GetObjectResponse> in = admin.getObject(get -> get.bucket("big-copies")
                    .key("copy.bin").range("bytes=" + at + "-" + (at + 15)))) {
                assertThat(in.readAllBytes()).as("at " + at).isEqualTo(marker(at));
            }
        }
        admin.deleteObject(delete -> delete.bucket("big-copies").key("copy.bin"));
        admin.deleteObject(delete -> delete.bucket("big-copies").key("source.bin"));
    }

    private static void assertError(Runnable call, int status, String code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).as(e.getMessage()).isEqualTo(status);
            if (code != null) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }

    /** 16 bytes that say where they are. */
    private static byte[] marker(long at) {
        return "@%015d".formatted(at).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] bytes(Random random, int size) {
        byte[] content = new byte[size];
        random.nextBytes(content);
        return content;
    }

    private static String md5(byte[] content) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
    }

    private static String quoted(String etag) {
        return '"' + etag + '"';
    }
}
