package io.granary.gateway.s3;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Metrics;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.S3Resource;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.gateway.client.NearCache;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.Suspects;
import io.granary.ufs.Credentials;
import io.granary.ufs.S3Location;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.S3UnderStore;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The S3 API as users meet it: the AWS SDK for Java v2 against the gateway, with a real metadata-service, two real
 * block workers, Kafka, and S3Proxy as the under-store. Methods run in order: the last one kills a worker.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ApiTest {

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    /** Every service counts its requests to the under-store the same way. */
    private static final String UNDER_STORE_READS = "granary_understore_requests_total{op=\"read\"}";

    private static final int MIB = 1 << 20;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @ConfigProperty(name = "test.block-service-url")
    String worker1;

    @ConfigProperty(name = "test.block-service-2-url")
    String worker2;

    @ConfigProperty(name = "test.block-service-2-pid")
    long worker2Pid;

    @Inject
    LiveWorkers workers;

    @Inject
    Suspects suspects;

    @Inject
    NearCache near;

    private S3Client s3;
    private S3UnderStore store;
    private final Map<String, byte[]> train = new LinkedHashMap<>();

    @BeforeAll
    void setUp() {
        s3 = SdkClients.of(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY);
        // Objects go in through S3, so they carry the etags blocks are keyed by.
        store = new S3UnderStore(new S3Location(URI.create(s3Endpoint), "us-east-1", "train", "", true),
                new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY));
        Random random = new Random(42);
        for (int i = 0; i < 24; i++) {
            train.put("images/%02d/img-%03d.jpg".formatted(i % 3, i), bytes(random, 1 + random.nextInt(200_000)));
        }
        train.put("shards/shard-0.tar", bytes(random, 5 * MIB + 12_345));  // six blocks of 1 MiB, the last short
        train.put("odd name + 100%.txt", bytes(random, 999));
        train.put("ckpt/empty", new byte[0]);
        try {
            Files.createDirectories(buckets.resolve("train"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        train.forEach((key, content) -> store.write(key, new java.io.ByteArrayInputStream(content), content.length));
        createDataset("train", "1MiB");
    }

    @AfterAll
    void tearDown() {
        s3.close();
        store.close();
    }

    @Test
    @Order(1)
    void everyObjectIsListedHeadedAndReadByteForByteAndTheSecondPassComesFromTheCache() throws IOException {
        assertThat(s3.listBuckets().buckets()).anySatisfy(bucket -> assertThat(bucket.name()).isEqualTo("train"));
        assertThat(listAll("train", null)).containsExactlyElementsOf(new TreeSet<>(train.keySet()));

        readEverything();
        double storeReads = underStoreReads();
        double shortCircuit = Metrics.sum("granary_gateway_served_bytes_total{source=\"shortcircuit\"}", gateway);

        double overHttp = Metrics.sum("granary_gateway_served_bytes_total{source=\"worker\"}", gateway);
        long localHits = given().baseUri(worker1).get("/blocks/stats").jsonPath().getLong("hits");
        readEverything();
        assertThat(underStoreReads()).as("no under-store read on the warm pass").isEqualTo(storeReads);
        assertThat(Metrics.sum("granary_gateway_served_bytes_total{source=\"shortcircuit\"}", gateway))
                .as("blocks of the worker on this node are read from its files").isGreaterThan(shortCircuit);
        assertThat(Metrics.sum("granary_gateway_served_bytes_total{source=\"worker\"}", gateway))
                .as("blocks of the worker on the other node come over HTTP").isGreaterThan(overHttp);
        // Reads from its files never reach the worker on this node: the gateway reports them (its LRU, its hit ratio).
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(given().baseUri(worker1)
                .get("/blocks/stats").jsonPath().getLong("hits")).isGreaterThan(localHits));
    }

    @Test
    @Order(2)
    void rangesAcrossBlockBoundariesAndConditionalsAreAnsweredAsS3Does() throws IOException {
        byte[] shard = train.get("shards/shard-0.tar");
        Random random = new Random(7);
        for (int i = 0; i < 40; i++) {
            int first = random.nextInt(shard.length);
            int last = Math.min(shard.length - 1, first + random.nextInt(3 * MIB));
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("train")
                    .key("shards/shard-0.tar").range("bytes=" + first + "-" + last))) {
                assertThat(in.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(shard, first, last + 1));
                assertThat(in.response().contentRange()).isEqualTo("bytes " + first + "-" + last + "/" + shard.length);
            }
        }
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("train")
                .key("shards/shard-0.tar").range("bytes=-100"))) {
            assertThat(in.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(shard, shard.length - 100, shard.length));
        }
        HeadObjectResponse head = s3.headObject(h -> h.bucket("train").key("shards/shard-0.tar"));
        assertThat(head.eTag()).isEqualTo('"' + store.stat("shards/shard-0.tar").etag() + '"');
        assertThat(head.contentLength()).isEqualTo(shard.length);
        assertThatThrownBy(() -> s3.getObject(get -> get.bucket("train").key("shards/shard-0.tar")
                .ifNoneMatch(head.eTag())).close()).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.statusCode()).isEqualTo(304));
        assertThatThrownBy(() -> s3.getObject(get -> get.bucket("train").key("shards/shard-0.tar")
                .ifMatch("\"other\"")).close()).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("PreconditionFailed"));
    }

    @Test
    @Order(3)
    void aListingOfThreeThousandKeysPagesAsTheStoreDoes() throws IOException {
        TreeSet<String> keys = new TreeSet<>();
        for (int d = 0; d < 30; d++) {
            Path dir = Files.createDirectories(buckets.resolve("many").resolve("d%02d".formatted(d)));
            for (int f = 0; f < 100; f++) {
                Files.write(dir.resolve("f%03d".formatted(f)), new byte[]{(byte) f});
                keys.add("d%02d/f%03d".formatted(d, f));
            }
        }
        createDataset("many", "16MiB");
        List<String> pages = new ArrayList<>();
        ListObjectsV2Response page = null;
        do {
            String token = page == null ? null : page.nextContinuationToken();
            page = s3.listObjectsV2(list -> list.bucket("many").maxKeys(700).continuationToken(token));
            page.contents().stream().map(S3Object::key).forEach(pages::add);
            assertThat(page.keyCount()).isLessThanOrEqualTo(700);
        } while (page.isTruncated());
        assertThat(pages).containsExactlyElementsOf(keys);

        ListObjectsV2Response dirs = s3.listObjectsV2(list -> list.bucket("many").delimiter("/"));
        assertThat(dirs.commonPrefixes()).hasSize(30);
        assertThat(s3.listObjectsV2(list -> list.bucket("many").prefix("d07/").startAfter("d07/f050")).contents())
                .extracting(S3Object::key).hasSize(49).first().isEqualTo("d07/f051");
        // ListObjects V1, as s3fs uses it, pages with the marker.
        List<String> v1 = new ArrayList<>();
        String marker = null;
        software.amazon.awssdk.services.s3.model.ListObjectsResponse v1Page;
        do {
            String from = marker;
            v1Page = s3.listObjects(list -> list.bucket("many").maxKeys(1000).marker(from));
            v1Page.contents().stream().map(S3Object::key).forEach(v1::add);
            marker = v1.get(v1.size() - 1);
        } while (v1Page.isTruncated());
        assertThat(v1).containsExactlyElementsOf(keys);

        // The owner: in every V1 entry, in V2 only when asked for, and the same as ListBuckets names.
        String owner = s3.listBuckets().owner().id();
        assertThat(owner).isNotBlank();
        assertThat(v1Page.contents()).allSatisfy(object -> assertThat(object.owner().id()).isEqualTo(owner));
        assertThat(s3.listObjectsV2(list -> list.bucket("many").prefix("d01/")).contents())
                .allSatisfy(object -> assertThat(object.owner()).isNull());
        assertThat(s3.listObjectsV2(list -> list.bucket("many").prefix("d01/").fetchOwner(true)).contents())
                .hasSize(100).allSatisfy(object -> assertThat(object.owner().id()).isEqualTo(owner));
    }

    @Test
    @Order(4)
    void putAndA200MiBMultipartUploadLandInTheStoreAndAreThenReadFromTheCache() throws Exception {
        byte[] small = bytes(new Random(3), 3 * MIB + 5);
        s3.putObject(put -> put.bucket("train").key("ckpt/step-1/model.pt"), RequestBody.fromBytes(small));
        assertThat(readStore("ckpt/step-1/model.pt")).isEqualTo(sha256(small));

        String key = "ckpt/step-2/model.pt";
        String uploadId = s3.createMultipartUpload(create -> create.bucket("train").key(key)).uploadId();
        List<CompletedPart> parts = new ArrayList<>();
        MessageDigest whole = MessageDigest.getInstance("SHA-256");
        Random random = new Random(11);
        for (int part = 1; part <= 8; part++) {
            byte[] content = bytes(random, part < 8 ? 25 * MIB : 25 * MIB - 4321);
            whole.update(content);
            int number = part;
            String etag = s3.uploadPart(upload -> upload.bucket("train").key(key).uploadId(uploadId).partNumber(number),
                    RequestBody.fromBytes(content)).eTag();
            parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
        }
        double cached = cacheWritten("stored");
        String etag = s3.completeMultipartUpload(complete -> complete.bucket("train").key(key).uploadId(uploadId)
                .multipartUpload(upload -> upload.parts(parts))).eTag();
        // The upload is answered first and its blocks reach the cache after.
        await().atMost(Duration.ofSeconds(60)).until(() -> cacheWritten("stored") - cached >= 200.0 * MIB - 4321);
        String expected = HexFormat.of().formatHex(whole.digest());
        assertThat(readStore(key)).as("the under-store has the bytes").isEqualTo(expected);
        assertThat(etag).isEqualTo('"' + store.stat(key).etag() + '"');

        double storeReads = underStoreReads();
        assertThat(sha256(s3.getObject(get -> get.bucket("train").key(key)))).isEqualTo(expected);
        assertThat(sha256(s3.getObject(get -> get.bucket("train").key("ckpt/step-1/model.pt")))).isEqualTo(sha256(small));
        assertThat(underStoreReads()).as("written through: read from the cache").isEqualTo(storeReads);
        assertThat(listAll("train", "ckpt/")).contains(key, "ckpt/step-1/model.pt");

        s3.deleteObject(delete -> delete.bucket("train").key("ckpt/step-1/model.pt"));
        assertThatThrownBy(() -> s3.headObject(h -> h.bucket("train").key("ckpt/step-1/model.pt")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    }

    @Test
    @Order(4)
    void aMultipartUploadWhosePartsWentThroughAnotherGatewayIsFilledFromTheStore() throws Exception {
        String key = "ckpt/step-3/model.pt";
        String uploadId = s3.createMultipartUpload(create -> create.bucket("train").key(key)).uploadId();
        Random random = new Random(13);
        byte[] first = bytes(random, 8 * MIB);
        byte[] second = bytes(random, 5 * MIB + 77);
        String firstEtag = s3.uploadPart(upload -> upload.bucket("train").key(key).uploadId(uploadId).partNumber(1),
                RequestBody.fromBytes(first)).eTag();
        // The second part goes through another gateway replica: straight into the store's upload, as that one sends it.
        String secondEtag = store.uploadPart(key, uploadId, 2, new ByteArrayInputStream(second), second.length);
        double filled = cacheWritten("filled");
        s3.completeMultipartUpload(complete -> complete.bucket("train").key(key).uploadId(uploadId)
                .multipartUpload(upload -> upload.parts(CompletedPart.builder().partNumber(1).eTag(firstEtag).build(),
                        CompletedPart.builder().partNumber(2).eTag(secondEtag).build())));
        // This gateway cannot push what it never saw: the owners read the object back from the store, once.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> cacheWritten("filled") - filled >= first.length + second.length);

        double storeReads = underStoreReads();
        MessageDigest whole = MessageDigest.getInstance("SHA-256");
        whole.update(first);
        whole.update(second);
        assertThat(sha256(s3.getObject(get -> get.bucket("train").key(key))))
                .isEqualTo(HexFormat.of().formatHex(whole.digest()));
        assertThat(underStoreReads()).as("filled by its owners: read from the cache").isEqualTo(storeReads);
    }

    @Test
    @Order(5)
    void deleteObjectsDeletesEachKeyOnItsOwnAndQuietModeReportsOnlyFailures() {
        for (String key : List.of("tmp/a", "tmp/b", "tmp/c", "tmp/d")) {
            s3.putObject(put -> put.bucket("train").key(key), RequestBody.fromString(key));
            assertThat(s3.getObjectAsBytes(get -> get.bucket("train").key(key)).asUtf8String()).isEqualTo(key);
        }

        DeleteObjectsResponse answered = s3.deleteObjects(delete -> delete.bucket("train").delete(d -> d.objects(
                o -> o.key("tmp/a"), o -> o.key("tmp/b"), o -> o.key("tmp/never-there"),
                o -> o.key("tmp/../../outside"))));

        assertThat(answered.deleted()).extracting(DeletedObject::key)
                .containsExactlyInAnyOrder("tmp/a", "tmp/b", "tmp/never-there");
        assertThat(answered.errors()).singleElement().satisfies(error -> {
            assertThat(error.key()).isEqualTo("tmp/../../outside");
            assertThat(error.code()).isEqualTo("InvalidArgument");
        });
        assertThat(listAll("train", "tmp/")).containsExactlyInAnyOrder("tmp/c", "tmp/d");
        assertThatThrownBy(() -> s3.getObject(get -> get.bucket("train").key("tmp/a")).close())
                .as("not served from the cache either").isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchKey"));
        assertThatThrownBy(() -> store.stat("tmp/a")).as("gone from the store").isInstanceOf(ObjectNotFoundException.class);

        DeleteObjectsResponse quiet = s3.deleteObjects(delete -> delete.bucket("train").delete(d -> d.quiet(true)
                .objects(o -> o.key("tmp/c"), o -> o.key("tmp/d"))));

        assertThat(quiet.deleted()).isEmpty();
        assertThat(quiet.errors()).isEmpty();
        assertThat(listAll("train", "tmp/")).isEmpty();
    }

    @Test
    @Order(5)
    void badRequestsGetS3ErrorsAndNeverA500() throws Exception {
        try (S3Client wrongSecret = SdkClients.of(gateway, S3Resource.ACCESS_KEY, "not-the-secret");
             S3Client unknownKey = SdkClients.of(gateway, "nobody", "whatever")) {
            assertThatThrownBy(() -> wrongSecret.listBuckets()).isInstanceOfSatisfying(S3Exception.class,
                    e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch"));
            assertThatThrownBy(() -> unknownKey.listBuckets()).isInstanceOfSatisfying(S3Exception.class,
                    e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId"));
        }
        assertThatThrownBy(() -> s3.listObjectsV2(list -> list.bucket("no-such-dataset")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchBucket"));
        assertThatThrownBy(() -> s3.getObject(get -> get.bucket("train").key("no/such/key")).close())
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchKey"));
        assertThatThrownBy(() -> s3.getObject(get -> get.bucket("train").key("shards/shard-0.tar")
                .range("bytes=99999999-")).close()).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidRange"));
        String uploadId = s3.createMultipartUpload(create -> create.bucket("train").key("bad/xml")).uploadId();
        HttpResponse<String> garbage = Signed.send(gateway, "POST", "/train/bad/xml?uploadId=" + uploadId,
                "<CompleteMultipartUpload><Part><oops".getBytes());
        assertThat(garbage.statusCode()).as(garbage.body()).isEqualTo(400);
        assertThat(garbage.body()).contains("<Code>MalformedXML</Code>");
        HttpResponse<String> anonymous = HttpClient.newHttpClient().send(HttpRequest.newBuilder(gateway.resolve("/train"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(403);
        assertThat(anonymous.body()).contains("<Code>AccessDenied</Code>");
        HttpResponse<String> acl = Signed.send(gateway, "GET", "/train?acl", null);
        assertThat(acl.statusCode()).isEqualTo(200);
        assertThat(acl.body()).as("its creator's").contains("<Permission>FULL_CONTROL</Permission>")
                .contains("<ID>admin</ID>");
        String logDelivery = "<AccessControlPolicy><Owner><ID>admin</ID></Owner><AccessControlList><Grant><Grantee>"
                + "<URI>http://acs.amazonaws.com/groups/s3/LogDelivery</URI></Grantee><Permission>WRITE</Permission>"
                + "</Grant></AccessControlList></AccessControlPolicy>";
        HttpResponse<String> grant = Signed.send(gateway, "PUT", "/train?acl", logDelivery.getBytes());
        assertThat(grant.statusCode()).as("a group Granary does not have").isEqualTo(400);
        assertThat(grant.body()).contains("<Code>InvalidArgument</Code>");
        HttpResponse<String> bad = Signed.send(gateway, "PUT", "/train?acl", "<AccessControlPolicy><oops".getBytes());
        assertThat(bad.body()).contains("<Code>MalformedXML</Code>");
        HttpResponse<String> policy = Signed.send(gateway, "GET", "/train?policy", null);
        assertThat(policy.statusCode()).isEqualTo(501);
        assertThat(given().baseUri(gateway.toString()).get("/q/metrics").asString()).as("no request answered 500")
                .doesNotContainPattern("granary_gateway_requests_total\\{[^}]*status=\"500\"");
    }

    @Test
    @Order(0)
    void healthMetricsAndOpenApiAreServedBesideTheS3Api() {
        given().baseUri(gateway.toString()).get("/q/health/ready").then().statusCode(200)
                .body("status", org.hamcrest.Matchers.equalTo("UP"))
                .body(org.hamcrest.Matchers.containsString(Topics.DATASET_EVENTS));
        given().baseUri(gateway.toString()).get("/q/openapi").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("gateway"));
        given().baseUri(gateway.toString()).get("/q/metrics").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("jvm_memory_used_bytes"));
    }

    @Test
    @Order(6)
    void theManagementApiIsServedThroughTheGateway() {
        given().baseUri(gateway.toString()).get("/api/v1/datasets/train").then().statusCode(200)
                .body("spec.name", org.hamcrest.Matchers.equalTo("train"));
        given().baseUri(gateway.toString()).get("/api/v1/datasets/nope").then().statusCode(404)
                .contentType("application/problem+json");
    }

    @Test
    @Order(7)
    void rangedReadsInSequenceLoadTheNextBlocksBeforeTheyAreAskedFor() throws IOException {
        createDataset("seq", "1MiB", "train");
        byte[] shard = train.get("shards/shard-0.tar");
        double before = underStoreReads();
        for (int block = 0; block < 2; block++) {
            int first = block * MIB;
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("seq")
                    .key("shards/shard-0.tar").range("bytes=" + first + "-" + (first + MIB - 1)))) {
                assertThat(in.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(shard, first, first + MIB));
            }
        }
        // Blocks 0 and 1 were read; the second read continued the first, so blocks 2 and 3 load unasked.
        await().atMost(Duration.ofSeconds(30)).until(() -> underStoreReads() == before + 4);
        // Out of order, so these two prefetch nothing themselves.
        for (int block : new int[]{3, 2}) {
            int first = block * MIB;
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("seq")
                    .key("shards/shard-0.tar").range("bytes=" + first + "-" + (first + MIB - 1)))) {
                assertThat(in.readAllBytes()).isEqualTo(java.util.Arrays.copyOfRange(shard, first, first + MIB));
            }
        }
        assertThat(underStoreReads()).as("blocks 2 and 3 were already cached").isEqualTo(before + 4);
    }

    @Test
    @Order(8)
    void aFileRewrittenOrFreedIsNeverReadFromABlockFileKeptOpen() throws Exception {
        String shortCircuited = "granary_gateway_served_bytes_total{source=\"shortcircuit\"}";
        // An image whose block is on the worker on this node: its warm read is sent from a file the gateway keeps open.
        String key = null;
        for (String image : train.keySet().stream().filter(k -> k.startsWith("images/")).toList()) {
            assertThat(get("train", image)).isEqualTo(train.get(image));
            double before = Metrics.sum(shortCircuited, gateway);
            assertThat(get("train", image)).isEqualTo(train.get(image));
            if (Metrics.sum(shortCircuited, gateway) > before) {
                key = image;
                break;
            }
        }
        assertThat(key).as("an image cached on this node").isNotNull();
        String image = key;

        // The same size, so only the version tells the two apart.
        byte[] rewritten = bytes(new Random(8), train.get(image).length);
        s3.putObject(put -> put.bucket("train").key(image), RequestBody.fromBytes(rewritten));
        train.put(image, rewritten);
        assertThat(get("train", image)).as("the new version, not the open file of the old").isEqualTo(rewritten);
        assertThat(get("train", image)).isEqualTo(rewritten);

        given().baseUri(gateway.toString()).delete("/api/v1/datasets/train/cache").then().statusCode(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> List.of(worker1, worker2).stream().allMatch(worker ->
                ((Number) given().baseUri(worker).get("/blocks/stats").jsonPath().getMap("cachedBytes")
                        .getOrDefault("train", 0)).longValue() == 0));
        double storeReads = underStoreReads();
        assertThat(get("train", image)).isEqualTo(rewritten);
        assertThat(underStoreReads()).as("freed: read from the store again, not from a file kept open")
                .isGreaterThan(storeReads);
    }

    /**
     * A worker that gives no byte (stopped: its node's kernel still takes the connection, as a cut node's peers see
     * nothing come back) is read around after the hedge delay, not a fixed timeout, and, answering no liveness check
     * either, is suspected: the next read on this gateway goes elsewhere without waiting on it. Its late answers, once it goes on, change
     * nothing.
     */
    @Test
    @Order(99)
    void aSilentWorkerIsReadAroundAndTheNextReadDoesNotWaitOnIt() throws Exception {
        Random random = new Random(7);
        Map<String, byte[]> objects = new LinkedHashMap<>();
        for (int i = 0; i < 16; i++) {
            byte[] content = bytes(random, 300_000 + i);
            store.write("silent/" + i + ".bin", new java.io.ByteArrayInputStream(content), content.length);
            objects.put("silent/" + i + ".bin", content);
        }
        createDataset("silent", "1MiB", "train");
        List<String> ownedBySilent = objects.keySet().stream()
                .filter(key -> firstOwner("silent", key).id().equals("block-service-2")).limit(2).toList();
        assertThat(ownedBySilent).as("blocks the second worker owns (but once in 2^15 runs)").hasSize(2);
        Worker silent = firstOwner("silent", ownedBySilent.get(0));
        String failedFallbacks = "granary_gateway_fallbacks_total{reason=\"" + GatewayMetrics.OWNER_FAILED + "\"}";

        signal("STOP", worker2Pid);
        try {
            double before = Metrics.sum(failedFallbacks, gateway);
            assertThat(get("silent", ownedBySilent.get(0))).isEqualTo(objects.get(ownedBySilent.get(0)));
            assertThat(Metrics.sum(failedFallbacks, gateway)).as("read around the silent owner").isEqualTo(before + 1);
            // It answers no liveness check either: suspected, for every read on this gateway.
            await().atMost(Duration.ofSeconds(30)).until(() -> suspects.trusted(List.of(silent)).isEmpty());

            assertThat(get("silent", ownedBySilent.get(1))).isEqualTo(objects.get(ownedBySilent.get(1)));
            assertThat(Metrics.sum(failedFallbacks, gateway)).as("the next read went elsewhere at once")
                    .isEqualTo(before + 1);
        } finally {
            signal("CONT", worker2Pid);
        }
        // It answers what it was asked, late, into connections given up; the bytes read stay right.
        await().atMost(Duration.ofSeconds(60)).until(() -> firstOwner("silent", ownedBySilent.get(0)).id()
                .equals("block-service-2"));
        for (String key : ownedBySilent) {
            assertThat(get("silent", key)).isEqualTo(objects.get(key));
        }
    }

    private Worker firstOwner(String dataset, String key) {
        FileInfo file = near.file(dataset, key).orElseThrow();
        return workers.owners(BlockId.of(dataset, key, file.etag(), 0).toString(), Map.of(), 1).get(0);
    }

    private static void signal(String signal, long pid) throws Exception {
        assertThat(new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor())
                .as("kill -%s %d", signal, pid).isZero();
    }

    @Test
    @Order(100)
    void aWorkerKilledDuringAReadDoesNotFailIt() throws Exception {
        Random random = new Random(99);
        byte[] big = bytes(random, 40 * MIB + 77);
        store.write("big/cold.bin", new java.io.ByteArrayInputStream(big), big.length);
        createDataset("cold", "1MiB", "train");
        double fallbacks = Metrics.sum("granary_gateway_fallbacks_total", gateway);
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("cold").key("big/cold.bin"))) {
            byte[] head = in.readNBytes(MIB);
            ProcessHandle.of(worker2Pid).ifPresent(ProcessHandle::destroyForcibly);
            ProcessHandle.of(worker2Pid).ifPresent(process -> process.onExit().join());
            byte[] rest = in.readAllBytes();
            byte[] read = new byte[head.length + rest.length];
            System.arraycopy(head, 0, read, 0, head.length);
            System.arraycopy(rest, 0, read, head.length, rest.length);
            assertThat(sha256(read)).isEqualTo(sha256(big));
        }
        assertThat(Metrics.sum("granary_gateway_fallbacks_total", gateway))
                .as("the dead worker's blocks were read around it").isGreaterThan(fallbacks);
        // And after: placement has moved on, reads work with one worker.
        assertThat(sha256(s3.getObject(get -> get.bucket("cold").key("big/cold.bin")))).isEqualTo(sha256(big));
    }

    private void readEverything() throws IOException {
        for (Map.Entry<String, byte[]> object : train.entrySet()) {
            HeadObjectResponse head = s3.headObject(h -> h.bucket("train").key(object.getKey()));
            assertThat(head.contentLength()).isEqualTo(object.getValue().length);
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket("train").key(object.getKey()))) {
                assertThat(in.readAllBytes()).as(object.getKey()).isEqualTo(object.getValue());
                assertThat(in.response().eTag()).isEqualTo(head.eTag());
            }
        }
    }

    private byte[] get(String bucket, String key) throws IOException {
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(get -> get.bucket(bucket).key(key))) {
            return in.readAllBytes();
        }
    }

    private List<String> listAll(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        s3.listObjectsV2Paginator(list -> list.bucket(bucket).prefix(prefix).maxKeys(10)).contents()
                .forEach(object -> keys.add(object.key()));
        return keys;
    }

    /** Under-store reads anywhere: by the two workers (a dead one reads nothing) and by the gateway itself. */
    private double underStoreReads() {
        double reads = Metrics.sum(UNDER_STORE_READS, gateway);
        for (String worker : List.of(worker1, worker2)) {
            try {
                reads += Metrics.sum(UNDER_STORE_READS, URI.create(worker));
            } catch (RuntimeException e) {
                // killed
            }
        }
        return reads;
    }

    private double cacheWritten(String outcome) {
        return Metrics.sum("granary_gateway_cache_written_bytes_total{outcome=\"" + outcome + "\"}", gateway);
    }

    private void createDataset(String name, String blockSize) {
        createDataset(name, blockSize, name);
    }

    /** Through the gateway: the management API is proxied to the metadata-service. */
    private void createDataset(String name, String blockSize, String bucket) {
        Datasets.createBound(gateway, Datasets.spec(name, blockSize, Datasets.s3Mount(bucket, s3Endpoint)));
    }

    private String readStore(String key) throws Exception {
        try (InputStream in = store.read(key, 0, -1)) {
            return sha256(in);
        }
    }

    private static byte[] bytes(Random random, int size) {
        byte[] content = new byte[size];
        random.nextBytes(content);
        return content;
    }

    private static String sha256(byte[] content) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    }

    private static String sha256(InputStream in) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        try (in) {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) > 0; ) {
                digest.update(chunk, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
