package io.granary.gateway.s3;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.BucketCannedACL;
import software.amazon.awssdk.services.s3.model.GetBucketAclResponse;
import software.amazon.awssdk.services.s3.model.Grant;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.Type;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * S3's access control beside Granary's roles, through the AWS SDK and unsigned requests: a bucket belongs to the
 * identity that created it (an admin of other datasets only creates buckets its roles do not reach), ACLs grant
 * identities, anyone signed in or anyone at all what their roles do not, a public access block refuses public
 * ACLs, and CORS rules answer browsers. An object's ACL is kept with the object, in a local file's extended
 * attributes or an S3 store's metadata.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AclsTest {

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path s3Buckets;

    private S3Client admin;
    private S3Client other;
    /** HTTP/1.1, as S3 clients and browsers talk to S3. */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void setUp() {
        RestAssuredAuth.asCluster();
        admin = SdkClients.of(gateway, Identities.ADMIN);
        other = SdkClients.of(gateway, Identities.OTHER_ADMIN);
    }

    @AfterAll
    void tearDown() {
        admin.close();
        other.close();
    }

    @Test
    void aBucketBelongsToItsCreatorAndIsPrivateToOthers() {
        admin.createBucket(create -> create.bucket("acl-mine"));
        admin.putObject(put -> put.bucket("acl-mine").key("a.txt"), RequestBody.fromString("admin's"));
        other.createBucket(create -> create.bucket("acl-theirs"));

        GetBucketAclResponse acl = other.getBucketAcl(get -> get.bucket("acl-theirs"));
        assertThat(acl.owner().id()).isEqualTo("other-admin");
        assertThat(acl.grants()).singleElement().satisfies(grant -> {
            assertThat(grant.grantee().id()).isEqualTo("other-admin");
            assertThat(grant.permission()).isEqualTo(Permission.FULL_CONTROL);
        });
        given().get(gateway.resolve("/api/v1/datasets/acl-theirs")).then().statusCode(200)
                .body("spec.bucket.acl.owner", org.hamcrest.Matchers.equalTo("other-admin"));

        // Its own bucket, by ownership: its role reaches the dataset "other" alone.
        other.putObject(put -> put.bucket("acl-theirs").key("b.txt"), RequestBody.fromString("other's"));
        assertThat(other.getObjectAsBytes(get -> get.bucket("acl-theirs").key("b.txt")).asUtf8String())
                .isEqualTo("other's");
        assertThat(other.listObjectsV2(list -> list.bucket("acl-theirs").fetchOwner(true)).contents())
                .singleElement().satisfies(object -> assertThat(object.owner().id()).isEqualTo("other-admin"));
        assertThat(other.listBuckets().buckets()).extracting(Bucket::name).contains("acl-theirs")
                .doesNotContain("acl-mine");
        assertThat(other.listBuckets().owner().id()).isEqualTo("other-admin");
        assertError(() -> other.createBucket(create -> create.bucket("acl-mine")), 409, "BucketAlreadyExists");
        other.createBucket(create -> create.bucket("acl-theirs"));  // us-east-1: its own already, a no-op

        // Not admin's, which no grant opens to it.
        assertError(() -> other.listObjectsV2(list -> list.bucket("acl-mine")), 403, "AccessDenied");
        assertError(() -> other.getObjectAsBytes(get -> get.bucket("acl-mine").key("a.txt")), 403, "AccessDenied");
        assertError(() -> other.putObject(put -> put.bucket("acl-mine").key("c"), RequestBody.fromString("x")),
                403, "AccessDenied");
        assertError(() -> other.copyObject(copy -> copy.sourceBucket("acl-mine").sourceKey("a.txt")
                .destinationBucket("acl-theirs").destinationKey("stolen")), 403, "AccessDenied");
        assertError(() -> other.getBucketAcl(get -> get.bucket("acl-mine")), 403, "AccessDenied");
        assertError(() -> other.deleteBucket(delete -> delete.bucket("acl-mine")), 403, "AccessDenied");
        assertError(() -> other.listObjectsV2(list -> list.bucket("acl-mine").expectedBucketOwner("admin")),
                403, "AccessDenied");
        admin.listObjectsV2(list -> list.bucket("acl-mine").expectedBucketOwner("admin"));
        assertError(() -> admin.listObjectsV2(list -> list.bucket("acl-mine").expectedBucketOwner("someone")),
                403, "AccessDenied");

        other.deleteObject(delete -> delete.bucket("acl-theirs").key("b.txt"));
        other.deleteBucket(delete -> delete.bucket("acl-theirs"));
        assertError(() -> admin.headBucket(head -> head.bucket("acl-theirs")), 404, null);
    }

    @Test
    void grantsOpenWhatRolesDoNot() {
        admin.createBucket(create -> create.bucket("acl-granted"));
        admin.putObject(put -> put.bucket("acl-granted").key("k"), RequestBody.fromString("v"));
        admin.putBucketAcl(put -> put.bucket("acl-granted").grantRead("id=\"other-admin\""));

        assertThat(other.listObjectsV2(list -> list.bucket("acl-granted")).contents()).extracting(S3Object::key)
                .containsExactly("k");
        assertError(() -> other.getObjectAsBytes(get -> get.bucket("acl-granted").key("k")), 403, "AccessDenied");
        assertError(() -> other.putObject(put -> put.bucket("acl-granted").key("w"), RequestBody.fromString("w")),
                403, "AccessDenied");
        assertError(() -> other.getObjectAsBytes(get -> get.bucket("acl-granted").key("missing")), 404, "NoSuchKey");

        admin.putObjectAcl(put -> put.bucket("acl-granted").key("k").grantRead("id=\"other-admin\""));
        assertThat(other.getObjectAsBytes(get -> get.bucket("acl-granted").key("k")).asUtf8String()).isEqualTo("v");
        assertThat(admin.getObjectAcl(get -> get.bucket("acl-granted").key("k")).grants())
                .extracting(grant -> grant.grantee().id(), Grant::permission)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("other-admin", Permission.READ));

        admin.putBucketAcl(put -> put.bucket("acl-granted").grantWrite("id=\"other-admin\"")
                .grantFullControl("id=\"admin\""));
        other.putObject(put -> put.bucket("acl-granted").key("from-other"), RequestBody.fromString("o"));
        assertThat(admin.listObjects(list -> list.bucket("acl-granted")).contents())
                .filteredOn(object -> object.key().equals("from-other")).singleElement()
                .satisfies(object -> assertThat(object.owner().id()).as("the writer owns it").isEqualTo("other-admin"));
        assertThat(admin.headObject(head -> head.bucket("acl-granted").key("from-other")).metadata())
                .as("the ACL is kept with the object, never shown as its metadata").isEmpty();

        assertError(() -> admin.putBucketAcl(put -> put.bucket("acl-granted").grantRead("id=\"no-such-identity\"")),
                400, "InvalidArgument");
        assertError(() -> admin.putBucketAcl(put -> put.bucket("acl-granted").grantRead("emailAddress=\"a@b.c\"")),
                400, "UnresolvableGrantByEmailAddress");
    }

    @Test
    void publicAclsReachTheAnonymousAndAPublicAccessBlockRefusesThem() throws Exception {
        admin.createBucket(create -> create.bucket("acl-public").acl(BucketCannedACL.PUBLIC_READ));
        admin.putObject(put -> put.bucket("acl-public").key("open.txt").acl(ObjectCannedACL.PUBLIC_READ),
                RequestBody.fromString("for all"));
        admin.putObject(put -> put.bucket("acl-public").key("closed.txt"), RequestBody.fromString("for me"));

        assertThat(anonymous("GET", "/acl-public")).satisfies(answer -> {
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.body()).contains("<Key>open.txt</Key>", "<Key>closed.txt</Key>");
        });
        assertThat(anonymous("GET", "/acl-public/open.txt").body()).isEqualTo("for all");
        assertThat(anonymous("GET", "/acl-public/closed.txt").statusCode()).isEqualTo(403);
        assertThat(anonymous("PUT", "/acl-public/new.txt").statusCode()).isEqualTo(403);
        assertThat(anonymous("GET", "/acl-public/gone.txt").statusCode()).as("a bucket it may list: 404")
                .isEqualTo(404);
        assertThat(anonymous("GET", "/").body()).as("the anonymous own no bucket").doesNotContain("<Name>");

        // Forged: a client's own copy of the ACL's metadata key is dropped, not obeyed.
        admin.putObject(put -> put.bucket("acl-public").key("forged.txt")
                .metadata(java.util.Map.of("granary-acl", "admin READ:g:AllUsers")), RequestBody.fromString("no"));
        assertThat(anonymous("GET", "/acl-public/forged.txt").statusCode()).isEqualTo(403);

        // Made public afterwards: the object's ACL is rewritten in place, its bytes untouched.
        admin.putObjectAcl(put -> put.bucket("acl-public").key("closed.txt").acl(ObjectCannedACL.PUBLIC_READ));
        assertThat(anonymous("GET", "/acl-public/closed.txt").body()).isEqualTo("for me");
        assertThat(admin.getObjectAcl(get -> get.bucket("acl-public").key("closed.txt")).grants())
                .anySatisfy(grant -> {
                    assertThat(grant.grantee().type()).isEqualTo(Type.GROUP);
                    assertThat(grant.grantee().uri()).isEqualTo("http://acs.amazonaws.com/groups/global/AllUsers");
                    assertThat(grant.permission()).isEqualTo(Permission.READ);
                });

        assertError(() -> admin.getPublicAccessBlock(get -> get.bucket("acl-public")), 404,
                "NoSuchPublicAccessBlockConfiguration");
        admin.putPublicAccessBlock(put -> put.bucket("acl-public").publicAccessBlockConfiguration(block -> block
                .blockPublicAcls(true).ignorePublicAcls(true).blockPublicPolicy(false).restrictPublicBuckets(false)));
        assertThat(admin.getPublicAccessBlock(get -> get.bucket("acl-public")).publicAccessBlockConfiguration())
                .satisfies(block -> {
                    assertThat(block.blockPublicAcls()).isTrue();
                    assertThat(block.ignorePublicAcls()).isTrue();
                    assertThat(block.blockPublicPolicy()).isFalse();
                });
        assertError(() -> admin.putBucketAcl(put -> put.bucket("acl-public").acl(BucketCannedACL.PUBLIC_READ_WRITE)),
                403, "AccessDenied");
        assertError(() -> admin.putObject(put -> put.bucket("acl-public").key("p").acl(ObjectCannedACL.PUBLIC_READ),
                RequestBody.fromString("p")), 403, "AccessDenied");
        assertThat(anonymous("GET", "/acl-public/open.txt").statusCode()).as("public grants ignored")
                .isEqualTo(403);
        admin.deletePublicAccessBlock(delete -> delete.bucket("acl-public"));
        assertThat(anonymous("GET", "/acl-public/open.txt").statusCode()).isEqualTo(200);
    }

    @Test
    void anObjectInAnS3StoreKeepsItsAclInTheStore() throws Exception {
        Files.createDirectories(s3Buckets.resolve("acl-s3"));
        Datasets.createBound(gateway, Datasets.spec("acl-s3", "1MiB", Datasets.s3Mount("acl-s3", s3Endpoint)));
        admin.putObject(put -> put.bucket("acl-s3").key("shared/x.bin"), RequestBody.fromString("from s3"));
        assertThat(anonymous("GET", "/acl-s3/shared/x.bin").statusCode()).isEqualTo(403);

        admin.putObjectAcl(put -> put.bucket("acl-s3").key("shared/x.bin").acl(ObjectCannedACL.PUBLIC_READ));
        given().contentType("application/json").post(gateway.resolve("/api/v1/datasets/acl-s3/sync")).then()
                .statusCode(202);
        Datasets.awaitBound(gateway, "acl-s3");
        assertThat(anonymous("GET", "/acl-s3/shared/x.bin").body()).as("after a resync too").isEqualTo("from s3");
    }

    @Test
    void corsRulesAnswerBrowsers() throws Exception {
        admin.createBucket(create -> create.bucket("acl-cors").acl(BucketCannedACL.PUBLIC_READ));
        assertError(() -> admin.getBucketCors(get -> get.bucket("acl-cors")), 404, "NoSuchCORSConfiguration");
        assertThat(preflight("/acl-cors/k", "https://app.example", "GET").statusCode())
                .as("no CORS configuration").isEqualTo(403);

        admin.putBucketCors(put -> put.bucket("acl-cors").corsConfiguration(cors -> cors.corsRules(
                rule -> rule.allowedMethods("GET", "HEAD").allowedOrigins("https://*.example").allowedHeaders("x-amz-*")
                        .exposeHeaders("ETag").maxAgeSeconds(600),
                rule -> rule.allowedMethods("PUT").allowedOrigins("*"))));
        assertThat(admin.getBucketCors(get -> get.bucket("acl-cors")).corsRules()).hasSize(2)
                .first().satisfies(rule -> assertThat(rule.allowedOrigins()).containsExactly("https://*.example"));

        HttpResponse<String> allowed = http.send(HttpRequest.newBuilder(gateway.resolve("/acl-cors/k"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).header("Origin", "https://app.example")
                .header("Access-Control-Request-Method", "GET")
                .header("Access-Control-Request-Headers", "x-amz-date").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(allowed.statusCode()).isEqualTo(200);
        assertThat(allowed.headers().firstValue("Access-Control-Allow-Origin")).hasValue("https://app.example");
        assertThat(allowed.headers().firstValue("Access-Control-Allow-Methods")).hasValue("GET, HEAD");
        assertThat(allowed.headers().firstValue("Access-Control-Allow-Headers")).hasValue("x-amz-date");
        assertThat(allowed.headers().firstValue("Access-Control-Max-Age")).hasValue("600");
        assertThat(preflight("/acl-cors/k", "https://evil.test", "GET").statusCode()).isEqualTo(403);
        assertThat(preflight("/acl-cors/k", "https://evil.test", "PUT").headers()
                .firstValue("Access-Control-Allow-Origin")).hasValue("*");
        assertThat(http.send(HttpRequest.newBuilder(gateway.resolve("/acl-cors/k"))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).as("no Origin").isEqualTo(400);

        HttpResponse<String> listing = http.send(HttpRequest.newBuilder(gateway.resolve("/acl-cors"))
                .header("Origin", "https://app.example").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(listing.statusCode()).isEqualTo(200);
        assertThat(listing.headers().firstValue("Access-Control-Allow-Origin")).hasValue("https://app.example");
        assertThat(listing.headers().firstValue("Access-Control-Expose-Headers")).hasValue("ETag");
        HttpResponse<String> missing = http.send(HttpRequest.newBuilder(gateway.resolve("/acl-cors/missing"))
                .header("Origin", "https://app.example").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Access-Control-Allow-Origin")).as("on an error too")
                .hasValue("https://app.example");

        assertError(() -> admin.putBucketCors(put -> put.bucket("acl-cors").corsConfiguration(cors -> cors.corsRules(
                rule -> rule.allowedMethods("PATCH").allowedOrigins("*")))), 400, "MalformedXML");
        assertError(() -> other.putBucketCors(put -> put.bucket("acl-cors").corsConfiguration(cors -> cors.corsRules(
                rule -> rule.allowedMethods("GET").allowedOrigins("*")))), 403, "AccessDenied");
        admin.deleteBucketCors(delete -> delete.bucket("acl-cors"));
        assertError(() -> admin.getBucketCors(get -> get.bucket("acl-cors")), 404, "NoSuchCORSConfiguration");
    }

    private HttpResponse<String> anonymous(String method, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(gateway.resolve(path))
                .method(method, method.equals("PUT") ? HttpRequest.BodyPublishers.ofString("x")
                        : HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> preflight(String path, String origin, String method)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(gateway.resolve(path))
                .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).header("Origin", origin)
                .header("Access-Control-Request-Method", method).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertError(ThrowingCallable call, int status, String code) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            if (code != null) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }
}
