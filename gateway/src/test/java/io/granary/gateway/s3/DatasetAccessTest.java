package io.granary.gateway.s3;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities.Identity;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.S3Resource;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.ufs.Credentials;
import io.granary.ufs.S3Location;
import io.granary.ufs.S3UnderStore;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Datasets as teams share them: a reader or writer of dataset team-a reaches nothing of team-b, through the AWS
 * SDK, a presigned URL or a signed management call, and a reader writes nowhere.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetAccessTest {

    private static final byte[] CONTENT = "a team's sample".getBytes(StandardCharsets.UTF_8);

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @BeforeAll
    void twoTeamsDatasets() throws IOException {
        for (String name : new String[] {"team-a", "team-b"}) {
            Files.createDirectories(buckets.resolve(name));
            try (S3UnderStore store = new S3UnderStore(new S3Location(URI.create(s3Endpoint), "us-east-1", name, "",
                    true), new Credentials(S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY))) {
                store.write("sample.txt", new ByteArrayInputStream(CONTENT), CONTENT.length);
            }
            Datasets.createBound(gateway, Datasets.spec(name, "1MiB", Datasets.s3Mount(name, s3Endpoint)));
        }
    }

    @Test
    void aReaderOfOneDatasetReadsItAndNothingOfAnother() {
        try (S3Client reader = SdkClients.of(gateway, Identities.TEAM_A_READER)) {
            assertThat(reader.getObjectAsBytes(r -> r.bucket("team-a").key("sample.txt")).asByteArray())
                    .isEqualTo(CONTENT);
            assertThat(reader.listObjectsV2(r -> r.bucket("team-a")).contents()).hasSize(1);
            assertThat(reader.listBuckets().buckets()).extracting(Bucket::name).containsExactly("team-a");

            assertDenied(() -> reader.listObjectsV2(r -> r.bucket("team-b")));
            assertDenied(() -> reader.headBucket(r -> r.bucket("team-b")));
            assertDenied(() -> reader.getObject(r -> r.bucket("team-b").key("sample.txt")));
            assertDenied(() -> reader.putObject(r -> r.bucket("team-b").key("x"), RequestBody.fromBytes(CONTENT)));
            assertDenied(() -> reader.deleteObject(r -> r.bucket("team-b").key("sample.txt")));
            assertDenied(() -> reader.putObject(r -> r.bucket("team-a").key("x"), RequestBody.fromBytes(CONTENT)));
            assertDenied(() -> reader.deleteObject(r -> r.bucket("team-a").key("sample.txt")));
            assertDenied(() -> reader.deleteObjects(r -> r.bucket("team-a")
                    .delete(d -> d.objects(o -> o.key("sample.txt")))));
        }
    }

    @Test
    void aWriterOfOneDatasetWritesItAndNothingOfAnother() {
        try (S3Client writer = SdkClients.of(gateway, Identities.TEAM_A_WRITER)) {
            writer.putObject(r -> r.bucket("team-a").key("written.txt"), RequestBody.fromBytes(CONTENT));
            assertThat(writer.getObjectAsBytes(r -> r.bucket("team-a").key("written.txt")).asByteArray())
                    .isEqualTo(CONTENT);
            writer.deleteObject(r -> r.bucket("team-a").key("written.txt"));
            assertDenied(() -> writer.putObject(r -> r.bucket("team-b").key("x"), RequestBody.fromBytes(CONTENT)));
            assertDenied(() -> writer.createMultipartUpload(r -> r.bucket("team-b").key("x")));
            assertDenied(() -> writer.getObject(r -> r.bucket("team-b").key("sample.txt")));
        }
    }

    @Test
    void aPresignedUrlCarriesItsSignersRightsAndNoMore() throws Exception {
        try (S3Presigner presigner = S3Presigner.builder().endpointOverride(gateway).region(Region.US_EAST_1)
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder()
                        .pathStyleAccessEnabled(true).build())
                .credentialsProvider(credentials(Identities.TEAM_A_READER)).build()) {
            HttpClient http = HttpClient.newHttpClient();
            for (String bucket : new String[] {"team-a", "team-b"}) {
                URI url = presigner.presignGetObject(r -> r.signatureDuration(Duration.ofMinutes(5))
                        .getObjectRequest(o -> o.bucket(bucket).key("sample.txt"))).url().toURI();
                HttpResponse<String> got = http.send(HttpRequest.newBuilder(url).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (bucket.equals("team-a")) {
                    assertThat(got.statusCode()).isEqualTo(200);
                } else {
                    assertThat(got.statusCode()).isEqualTo(403);
                    assertThat(got.body()).contains("<Code>AccessDenied</Code>");
                }
            }
        }
    }

    @Test
    void signedManagementCallsAreTheCallersOwnAndTheirBodiesMustBeTheSignedOnes() throws Exception {
        Identity reader = Identities.TEAM_A_READER;
        assertThat(Signed.send(gateway, reader.accessKey(), reader.secretKey(), "GET", "/api/v1/datasets/team-a",
                null, null).statusCode()).isEqualTo(200);
        HttpResponse<String> other = Signed.send(gateway, reader.accessKey(), reader.secretKey(), "GET",
                "/api/v1/datasets/team-b", null, null);
        assertThat(other.statusCode()).isEqualTo(403);
        assertThat(other.headers().firstValue("Content-Type")).contains("application/problem+json");
        HttpResponse<String> listed = Signed.send(gateway, reader.accessKey(), reader.secretKey(), "GET",
                "/api/v1/datasets", null, null);
        assertThat(listed.body()).contains("\"team-a\"").doesNotContain("team-b");
        assertThat(Signed.send(gateway, reader.accessKey(), "not-the-secret", "GET", "/api/v1/datasets/team-a",
                null, null).statusCode()).isEqualTo(401);

        byte[] spec = Datasets.spec("signed", "1MiB", Datasets.s3Mount("team-a", s3Endpoint))
                .getBytes(StandardCharsets.UTF_8);
        byte[] forged = Datasets.spec("forged", "1MiB", Datasets.s3Mount("team-a", s3Endpoint))
                .getBytes(StandardCharsets.UTF_8);
        assertThat(Signed.send(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY, "POST", "/api/v1/datasets",
                spec, forged).statusCode()).as("a body that is not the signed one").isEqualTo(400);
        HttpResponse<String> created = Signed.send(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY, "POST",
                "/api/v1/datasets", spec, spec);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(Signed.send(gateway, reader.accessKey(), reader.secretKey(), "DELETE", "/api/v1/datasets/signed",
                null, null).statusCode()).isEqualTo(403);
        assertThat(Signed.send(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY, "DELETE",
                "/api/v1/datasets/signed", null, null).statusCode()).isEqualTo(204);
    }

    @Test
    void aSignedManagementCallThatChangesSomethingSignsItsBody() throws Exception {
        String admin = S3Resource.ACCESS_KEY;
        String secret = S3Resource.SECRET_KEY;
        byte[] spec = Datasets.spec("signed-body", "1MiB", Datasets.s3Mount("team-a", s3Endpoint))
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> unsigned = Signed.send(Signed.request(gateway, admin, secret, "POST", "/api/v1/datasets",
                        spec, sign -> sign.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false))
                .POST(HttpRequest.BodyPublishers.ofByteArray(spec)).build());
        assertThat(unsigned.statusCode()).as(unsigned.body()).isEqualTo(403);
        assertThat(unsigned.headers().firstValue("Content-Type")).contains("application/problem+json");
        assertThat(unsigned.body()).contains("UNSIGNED-PAYLOAD");
        HttpResponse<String> presigned = Signed.send(Signed.request(gateway, admin, secret, "DELETE",
                        "/api/v1/datasets/no-such", null, sign -> sign
                                .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4HttpSigner.AuthLocation.QUERY_STRING)
                                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5))
                                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false))
                .DELETE().build());
        assertThat(presigned.statusCode()).as(presigned.body()).isEqualTo(403);
        HttpResponse<String> chunked = Signed.send(Signed.request(gateway, admin, secret, "POST", "/api/v1/datasets",
                        new byte[0], sign -> { })
                .POST(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofByteArray(spec))).build());
        assertThat(chunked.statusCode()).as("a body sent in chunks under the hash of none: " + chunked.body())
                .isEqualTo(411);
        assertThat(Signed.send(gateway, admin, secret, "POST", "/api/v1/datasets", "{}".getBytes(), spec)
                .statusCode()).as("a body that is not the signed one").isEqualTo(400);

        HttpResponse<String> created = Signed.send(gateway, admin, secret, "POST", "/api/v1/datasets", spec, spec);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        HttpResponse<String> read = Signed.send(Signed.request(gateway, admin, secret, "GET",
                        "/api/v1/datasets/signed-body", null,
                        sign -> sign.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false))
                .GET().build());
        assertThat(read.statusCode()).as("a read needs no signed body: " + read.body()).isEqualTo(200);
        assertThat(Signed.send(gateway, admin, secret, "DELETE", "/api/v1/datasets/signed-body", null, null)
                .statusCode()).isEqualTo(204);
    }

    @Test
    void aManagementPathIsOneHoweverItIsSpelt() throws Exception {
        // The access filter reads the normalised path; were the S3 routes to read the raw one, these were buckets.
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String root = gateway.toString().replaceAll("/$", "");
        for (String path : new String[] {"/%61pi/v1/datasets/team-a", "/team-a/../api/v1/datasets/team-a"}) {
            HttpResponse<String> got = http.send(HttpRequest.newBuilder(URI.create(root + path))
                            .header("Authorization", Identities.TEAM_A_READER.authorization()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(got.statusCode()).as(path + ": " + got.body()).isEqualTo(200);
            assertThat(got.headers().firstValue("Content-Type")).as(path).hasValueSatisfying(type ->
                    assertThat(type).startsWith("application/json"));
            assertThat(got.body()).as(path).contains("\"team-a\"");
        }
    }

    private static void assertDenied(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(403);
            if (e.awsErrorDetails().errorCode() != null) {  // a HEAD has no body to carry the code
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
            }
        });
    }

    private static StaticCredentialsProvider credentials(Identity identity) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(identity.accessKey(), identity.secretKey()));
    }
}
