package io.granary.metadata;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.KafkaResource;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.S3Resource;
import io.granary.ufs.Credentials;
import io.granary.ufs.ListPage;
import io.granary.ufs.ObjectInfo;
import io.granary.ufs.S3Location;
import io.granary.ufs.S3UnderStore;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

@QuarkusTest
@QuarkusTestResource(value = KafkaResource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = S3Resource.class, restrictToAnnotatedClass = false)
@QuarkusTestResource(value = MetadataStateResource.class, restrictToAnnotatedClass = false)
class DatasetApiTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    @TestHTTPResource
    URI api;

    private static final Pattern UFS_REQUESTS =
            Pattern.compile("granary_understore_requests_total\\{op=\"list\"} ([0-9.]+)");

    @ConfigProperty(name = "devstack.s3.endpoint")
    String endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @Test
    void aDatasetOfThreeThousandObjectsIsListedOnceAndThenServedFromTheCache() throws IOException {
        long totalBytes = seed("imagenet", 10, 3, 100);
        create("imagenet", "s3://imagenet/", "devstack-s3").statusCode(201)
                .body("spec.name", equalTo("imagenet"))
                .body("spec.mounts[0].credentialsRef", equalTo("devstack-s3"))
                .body("spec.blockSize", equalTo("16MiB"));

        Datasets.awaitBound(api, "imagenet");
        given().get("/api/v1/datasets/imagenet").then()
                .body("status.fileCount", equalTo(3000))
                .body("status.ufsTotalBytes", equalTo((int) totalBytes))
                .body(not(containsString(S3Resource.SECRET_KEY)));

        double listCallsAfterLoad = ufsListCalls();
        try (S3UnderStore bucket = new S3UnderStore(new S3Location(URI.create(endpoint), "us-east-1", "imagenet", "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
            for (String[] query : new String[][] {{"", null, "250"}, {"", "/", "4"}, {"d03/", "/", "2"},
                    {"d03/sub1/", "/", "7"}, {"d07/sub2/file-05", null, "3"}}) {
                assertThat(listAll(query[0], query[1], Integer.parseInt(query[2])))
                        .as("listing prefix=%s delimiter=%s", query[0], query[1])
                        .isEqualTo(bucketListing(bucket, query[0], query[1]));
            }
        }
        given().get("/api/v1/datasets/imagenet/files/d02/sub0/file-007").then().statusCode(200)
                .body("size", equalTo(size(2, 0, 7)));
        given().get("/api/v1/datasets/imagenet/files/d02/sub0/missing").then().statusCode(404)
                .contentType("application/problem+json");
        given().get("/api/v1/datasets/imagenet/files?limit=0").then().statusCode(400).body("field", equalTo("limit"));
        assertThat(ufsListCalls()).as("listing after the load never asks the under-store").isEqualTo(listCallsAfterLoad);
    }

    @Test
    void badInputIsA400NamingTheField() {
        given().contentType(ContentType.JSON).body(Map.of("name", "Bad_Name", "mounts", List.of(Map.of("uri", "s3://b/p"))))
                .post("/api/v1/datasets").then().statusCode(400).contentType("application/problem+json")
                .body("field", equalTo("name"));
        given().contentType(ContentType.JSON).body(Map.of("name", "ok-name", "mounts", List.of(Map.of("uri", "gs://x/y"))))
                .post("/api/v1/datasets").then().statusCode(400).body("field", equalTo("mounts[0].uri"));
        given().contentType(ContentType.JSON).body("{\"name\":\"ok-name\",\"mounts\":[{\"uri\":\"s3://b\"}],\"replicas\":\"many\"}")
                .post("/api/v1/datasets").then().statusCode(400).body("field", equalTo("replicas"));
        given().contentType(ContentType.JSON).body("{not json").post("/api/v1/datasets").then().statusCode(400)
                .contentType("application/problem+json");
        given().get("/api/v1/datasets/nothing-here").then().statusCode(404).body("detail", containsString("nothing-here"));
    }

    @Test
    void aDuplicateIsA409() throws IOException {
        seed("dup-data", 1, 1, 2);
        create("dup-data", "s3://dup-data/", "devstack-s3").statusCode(201);
        create("dup-data", "s3://dup-data/", "devstack-s3").statusCode(409).body("field", equalTo("name"));
    }

    @Test
    void theDatasetsCacheSharesAddUpToOneAtMost() throws IOException {
        seed("shares", 1, 1, 2);
        createWithShare("share-a", 0.6).statusCode(201).body("spec.cacheShare", equalTo(0.6f));
        createWithShare("share-b", 0.5).statusCode(400).contentType("application/problem+json")
                .body("field", equalTo("cacheShare")).body("detail", containsString("at most 0.40 is left"));
        createWithShare("share-b", 1.5).statusCode(400).body("field", equalTo("cacheShare"));
        createWithShare("share-b", 0.4).statusCode(201);
        create("share-none", "s3://shares/", "devstack-s3").statusCode(201).body("spec.cacheShare", nullValue());
    }

    private io.restassured.response.ValidatableResponse createWithShare(String name, double share) {
        return given().contentType(ContentType.JSON).body(Map.of("name", name, "cacheShare", share, "mounts",
                List.of(Map.of("uri", "s3://shares/", "options", Map.of("endpoint", endpoint, "pathStyle", "true"),
                        "credentialsRef", "devstack-s3")))).post("/api/v1/datasets").then();
    }

    @Test
    void anUnreachableOrRefusedUnderStoreIsFailedWithTheReason() throws IOException {
        seed("denied", 1, 1, 2);
        create("denied-data", "s3://denied/", "no-such-secret").statusCode(201)
                .body("status.phase", equalTo("Failed"))
                .body("status.reason", containsString("no-such-secret"));
        create("missing-bucket", "s3://no-bucket-here/", "devstack-s3").statusCode(201)
                .body("status.phase", equalTo("Failed"))
                .body("status.reason", containsString("no-bucket-here"));
    }

    @Test
    void aDatasetIsOwnedByItsCreatorAndItsBucketSettingsAreReplacedWhole() throws IOException {
        seed("owned", 1, 1, 2);
        given().header("Authorization", Identities.ADMIN.authorization()).contentType(ContentType.JSON)
                .body(Map.of("name", "owned", "mounts", List.of(Map.of("uri", "s3://owned/",
                        "options", Map.of("endpoint", endpoint, "pathStyle", "true"), "credentialsRef", "devstack-s3"))))
                .post("/api/v1/datasets").then().statusCode(201)
                .body("spec.bucket.acl.owner", equalTo("admin"))
                .body("spec.bucket.acl.grants[0].user", equalTo("admin"))
                .body("spec.bucket.acl.grants[0].permission", equalTo("FULL_CONTROL"));
        create("unowned", "s3://owned/", "devstack-s3").statusCode(201)
                .body("spec.bucket", org.hamcrest.Matchers.nullValue());  // made by the cluster itself

        Map<String, Object> settings = Map.of(
                "acl", Map.of("owner", "admin", "grants", List.of(Map.of("group", "AllUsers", "permission", "READ"))),
                "cors", List.of(Map.of("allowedMethods", List.of("GET"), "allowedOrigins", List.of("*"))),
                "publicAccessBlock", Map.of("blockPublicAcls", true, "ignorePublicAcls", false,
                        "blockPublicPolicy", false, "restrictPublicBuckets", false));
        given().contentType(ContentType.JSON).body(settings).put("/api/v1/datasets/owned/bucket").then()
                .statusCode(200).body("spec.bucket.acl.grants[0].group", equalTo("AllUsers"))
                .body("spec.bucket.cors[0].allowedOrigins[0]", equalTo("*"))
                .body("spec.bucket.publicAccessBlock.blockPublicAcls", equalTo(true));
        given().get("/api/v1/datasets/owned").then().body("spec.bucket.cors[0].allowedMethods[0]", equalTo("GET"));

        given().contentType(ContentType.JSON).body(Map.of("acl", Map.of("owner", "admin", "grants",
                        List.of(Map.of("group", "Everyone", "permission", "READ")))))
                .put("/api/v1/datasets/owned/bucket").then().statusCode(400)
                .body("field", equalTo("bucket.acl.grants[0].group"));
        given().contentType(ContentType.JSON).body(Map.of("cors", List.of(Map.of("allowedMethods", List.of("PATCH"),
                        "allowedOrigins", List.of("*")))))
                .put("/api/v1/datasets/owned/bucket").then().statusCode(400)
                .body("field", equalTo("bucket.cors[0].allowedMethods"));
        given().contentType(ContentType.JSON).body(Map.of()).put("/api/v1/datasets/nothing-here/bucket").then()
                .statusCode(404);
        given().header("Authorization", Identities.OTHER_ADMIN.authorization()).contentType(ContentType.JSON)
                .body(Map.of()).put("/api/v1/datasets/owned/bucket").then().statusCode(403);
    }

    @Test
    void deleteForgetsTheDatasetButNotTheBucket() throws IOException {
        seed("scratch", 1, 2, 5);
        create("scratch", "s3://scratch/", "devstack-s3").statusCode(201);
        Datasets.awaitBound(api, "scratch");
        given().delete("/api/v1/datasets/scratch").then().statusCode(204);
        given().get("/api/v1/datasets/scratch").then().statusCode(404);
        given().delete("/api/v1/datasets/scratch").then().statusCode(404);
        assertThat(buckets.resolve("scratch/d00/sub0/file-000")).exists();
    }

    @Test
    void aRefreshedFileIsListedWithItsStoreEtagAndAGoneOneIsDropped() throws IOException {
        seed("refresh", 1, 1, 2);
        create("refresh", "s3://refresh/", "devstack-s3").statusCode(201);
        Datasets.awaitBound(api, "refresh");

        // What the gateway does after a PUT: the store has the object, the metadata-service is told to look.
        try (S3UnderStore bucket = new S3UnderStore(new S3Location(URI.create(endpoint), "us-east-1", "refresh", "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
            ObjectInfo written = bucket.write("new/ckpt.bin", new java.io.ByteArrayInputStream(new byte[777]), 777);
            given().post("/api/v1/datasets/refresh/files/new/ckpt.bin/refresh").then().statusCode(200)
                    .body("size", equalTo(777)).body("etag", equalTo(written.etag()));
            given().get("/api/v1/datasets/refresh/files?prefix=new/").then()
                    .body("files.path", org.hamcrest.Matchers.contains("new/ckpt.bin"));

            bucket.delete("new/ckpt.bin");
            given().post("/api/v1/datasets/refresh/files/new/ckpt.bin/refresh").then().statusCode(404)
                    .contentType("application/problem+json");
            given().get("/api/v1/datasets/refresh/files/new/ckpt.bin").then().statusCode(404);
        }
    }

    private io.restassured.response.ValidatableResponse create(String name, String uri, String credentialsRef) {
        return given().contentType(ContentType.JSON).body(Map.of("name", name, "mounts", List.of(Map.of(
                        "uri", uri, "options", Map.of("endpoint", endpoint, "pathStyle", "true"),
                        "credentialsRef", credentialsRef))))
                .post("/api/v1/datasets").then();
    }

    /** Every key and common prefix, page by page through the cursor. */
    private static List<String> listAll(String prefix, String delimiter, int limit) {
        List<String> entries = new ArrayList<>();
        String cursor = null;
        do {
            var request = given().queryParam("prefix", prefix).queryParam("limit", limit);
            if (delimiter != null) {
                request.queryParam("delimiter", delimiter);
            }
            if (cursor != null) {
                request.queryParam("cursor", cursor);
            }
            JsonPath page = request.get("/api/v1/datasets/imagenet/files").then().statusCode(200).extract().jsonPath();
            entries.addAll(page.getList("files.path", String.class));
            entries.addAll(page.getList("prefixes", String.class));
            assertThat(page.getList("files").size() + page.getList("prefixes").size()).isLessThanOrEqualTo(limit);
            cursor = page.getString("nextCursor");
        } while (cursor != null);
        return entries.stream().sorted().toList();
    }

    private static List<String> bucketListing(S3UnderStore bucket, String prefix, String delimiter) {
        List<String> entries = new ArrayList<>();
        String cursor = null;
        do {
            ListPage page = bucket.list(prefix, delimiter, cursor, 1000);
            page.objects().stream().map(ObjectInfo::path).forEach(entries::add);
            entries.addAll(page.commonPrefixes());
            cursor = page.nextCursor();
        } while (cursor != null);
        return entries.stream().sorted().toList();
    }

    private static double ufsListCalls() {
        Matcher matcher = UFS_REQUESTS.matcher(given().get("/q/metrics").asString());
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
    }

    /** Writes objects straight into S3Proxy's filesystem backend: a bucket is a directory. */
    private long seed(String bucket, int dirs, int subdirs, int files) throws IOException {
        long total = 0;
        for (int d = 0; d < dirs; d++) {
            for (int s = 0; s < subdirs; s++) {
                Path dir = Files.createDirectories(buckets.resolve(bucket).resolve("d%02d/sub%d".formatted(d, s)));
                for (int f = 0; f < files; f++) {
                    byte[] content = new byte[size(d, s, f)];
                    content[0] = (byte) f;
                    Files.write(dir.resolve("file-%03d".formatted(f)), content);
                    total += content.length;
                }
            }
        }
        return total;
    }

    private static int size(int d, int s, int f) {
        return 1 + (d * 31 + s * 7 + f * 13) % 500;
    }
}
