package io.granary.kit.sigv4;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner.AuthLocation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.granary.kit.sigv4.SdkClient.ACCESS_KEY;
import static io.granary.kit.sigv4.SdkClient.NOW;
import static io.granary.kit.sigv4.SdkClient.incoming;
import static io.granary.kit.sigv4.SdkClient.request;
import static io.granary.kit.sigv4.SdkClient.sign;
import static io.granary.kit.sigv4.SdkClient.verifier;
import static io.granary.kit.sigv4.SdkClient.withHeader;
import static io.granary.kit.sigv4.SdkClient.withPath;
import static io.granary.kit.sigv4.SdkClient.withQuery;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The header form and presigned URLs, signed by the SDK's own signer, and what S3 answers when they are wrong. */
class SigV4VerifierTest {

    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private final SigV4Verifier verifier = verifier();

    @Test
    void getWithRangeSignedWithThePayloadHashOfAnEmptyBody() {
        IncomingRequest get = incoming(sign(request(SdkHttpMethod.GET, "http", "data/train.csv")
                .putHeader("Range", "bytes=0-1023").build(), null, s -> { }).request());
        assertThat(get.header("x-amz-content-sha256")).isEqualTo(EMPTY_SHA256);

        assertThat(verifier.verify(get))
                .isEqualTo(new Principal(ACCESS_KEY, PayloadMode.SIGNED, EMPTY_SHA256, null, -1, null));

        assertFails(withHeader(get, "range", "bytes=0-1024"), "SignatureDoesNotMatch", 403);
        assertFails(withPath(get, "/granary/data/train.csv2"), "SignatureDoesNotMatch", 403);
        assertFails(withQuery(get, "versionId=1"), "SignatureDoesNotMatch", 403);
        assertFails(withHeader(get, "x-amz-content-sha256", sha256Hex("x")), "SignatureDoesNotMatch", 403);
    }

    @Test
    void putWithASignedPayloadHandsTheHashToTheCaller() {
        byte[] body = "hello granary".getBytes(StandardCharsets.UTF_8);
        IncomingRequest put = incoming(sign(request(SdkHttpMethod.PUT, "http", "data/hello.txt")
                .putHeader("Content-Type", "text/plain").putHeader("x-amz-meta-owner", "ml-team").build(),
                body, s -> { }).request());

        Principal principal = verifier.verify(put);

        assertThat(principal.payload()).isEqualTo(PayloadMode.SIGNED);
        assertThat(principal.payloadSha256()).isEqualTo(sha256Hex("hello granary"));
        assertFails(withHeader(put, "x-amz-meta-owner", "someone-else"), "SignatureDoesNotMatch", 403);
        assertFails(withHeader(put, "x-amz-content-sha256", sha256Hex("tampered")), "SignatureDoesNotMatch", 403);
    }

    @Test
    void unsignedPayload() {
        IncomingRequest put = incoming(sign(request(SdkHttpMethod.PUT, "https", "data/big.bin").build(),
                new byte[] {1, 2, 3}, s -> s.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request());
        assertThat(put.header("x-amz-content-sha256")).isEqualTo("UNSIGNED-PAYLOAD");

        assertThat(verifier.verify(put))
                .isEqualTo(new Principal(ACCESS_KEY, PayloadMode.UNSIGNED, null, null, -1, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a b.txt", "dir/with space/file name.csv", "é/文字/ünïcödé.bin", "a+b=c~d.txt",
            "100%.txt", "%41%2F", "x=y&z?w#v", "emoji-😀.png", "  leading and  double  spaces ",
            "!'()*,;:@$[]{}|^`\"<>\\", "dir//double//slash/", "~user/.hidden"})
    void keysAsTheS3ClientEncodesThem(String key) {
        byte[] body = key.getBytes(StandardCharsets.UTF_8);
        for (boolean signPayload : new boolean[] {true, false}) {
            for (SdkHttpMethod method : new SdkHttpMethod[] {SdkHttpMethod.GET, SdkHttpMethod.PUT}) {
                byte[] payload = method == SdkHttpMethod.PUT ? body : null;
                IncomingRequest request = incoming(sign(request(method, "https", key).build(), payload,
                        s -> s.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, signPayload)).request());
                assertThat(verifier.verify(request).accessKeyId()).as("%s %s", method, request.rawPath())
                        .isEqualTo(ACCESS_KEY);
            }
        }
    }

    @Test
    void queryParametersWithEmptyValuesSpacesAndReservedCharacters() {
        List<Map<String, String>> queries = List.of(
                Map.of("uploads", ""),
                Map.of("list-type", "2", "prefix", ""),
                Map.of("list-type", "2", "prefix", "dir with space/é+=~", "delimiter", "/"),
                Map.of("partNumber", "3", "uploadId", "2~abc+def/ghi=="),
                Map.of("versionId", "null", "response-content-disposition", "attachment; filename=\"a b.csv\""));
        for (Map<String, String> query : queries) {
            var builder = request(SdkHttpMethod.GET, "http", query.containsKey("uploads") ? "key" : "");
            query.forEach(builder::putRawQueryParameter);
            IncomingRequest request = incoming(sign(builder.build(), null, s -> { }).request());

            assertThat(verifier.verify(request).accessKeyId()).as(request.rawQuery()).isEqualTo(ACCESS_KEY);
        }
    }

    @Test
    void headerValuesWithRunsOfWhitespaceAndRepeatedHeaders() {
        for (boolean signPayload : new boolean[] {true, false}) {
            IncomingRequest put = incoming(sign(request(SdkHttpMethod.PUT, "https", "k")
                    .putHeader("x-amz-meta-spaced", "  a   b \t c  ")
                    .putHeader("x-amz-meta-repeated", List.of("one", "  two  three "))
                    .putHeader("Content-Disposition", "attachment;\tfilename=\"x  y.csv\"").build(),
                    new byte[] {42}, s -> s.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, signPayload))
                    .request());

            assertThat(verifier.verify(put).accessKeyId()).isEqualTo(ACCESS_KEY);
            // Repeats are one comma-joined value to SigV4, so a proxy folding them changes nothing; their order counts.
            assertThat(verifier.verify(withHeader(put, "x-amz-meta-repeated", "one,two three")).accessKeyId())
                    .isEqualTo(ACCESS_KEY);
            assertFails(withHeader(put, "x-amz-meta-repeated", "two three,one"), "SignatureDoesNotMatch", 403);
        }
    }

    @Test
    void aValuelessParameterReadsTheSameWithOrWithoutItsEqualsSign() {
        var builder = request(SdkHttpMethod.POST, "http", "key");
        builder.putRawQueryParameter("uploads", "");
        IncomingRequest request = incoming(sign(builder.build(), null, s -> { }).request());

        assertThat(verifier.verify(withQuery(request, "uploads")).accessKeyId()).isEqualTo(ACCESS_KEY);
        assertThat(verifier.verify(withQuery(request, "uploads=")).accessKeyId()).isEqualTo(ACCESS_KEY);
        assertFails(withQuery(request, "uploads=x"), "SignatureDoesNotMatch", 403);
    }

    @Test
    void whoSignedAndWhen() {
        IncomingRequest get = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null, s -> { })
                .request());

        assertFails(get, verifierAt(Duration.ofMinutes(20)), "RequestTimeTooSkewed", 403);
        assertFails(get, verifierAt(Duration.ofMinutes(-20)), "RequestTimeTooSkewed", 403);
        assertThat(verifierAt(Duration.ofMinutes(14)).verify(get).accessKeyId()).isEqualTo(ACCESS_KEY);
        assertThat(verifierAt(Duration.ofMinutes(-14)).verify(get).accessKeyId()).isEqualTo(ACCESS_KEY);

        IncomingRequest otherSecret = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null,
                ACCESS_KEY, "not-the-secret", SdkClient.REGION, s -> { }).request());
        assertFails(otherSecret, "SignatureDoesNotMatch", 403);

        IncomingRequest unknownKey = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null,
                "AKIDUNKNOWN", SdkClient.SECRET, SdkClient.REGION, s -> { }).request());
        assertFails(unknownKey, "InvalidAccessKeyId", 403);
    }

    @Test
    void theCredentialScopeMustBeOurs() {
        IncomingRequest western = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null,
                ACCESS_KEY, SdkClient.SECRET, "us-west-2", s -> { }).request());
        assertThatThrownBy(() -> verifier.verify(western)).isInstanceOfSatisfying(AuthFailure.class, f -> {
            assertThat(f.code()).isEqualTo("AuthorizationHeaderMalformed");
            assertThat(f.status()).isEqualTo(400);
            assertThat(f.getMessage()).contains("the region 'us-west-2' is wrong; expecting 'us-east-1'");
        });

        IncomingRequest get = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null, s -> { })
                .request());
        String authorization = get.header("authorization");
        for (String scope : List.of("/20261123/us-east-1/s3", "/20261123/us-east-1/s3/aws4_request/x",
                "/20261124/us-east-1/s3/aws4_request", "/20261123/us-east-1/iam/aws4_request",
                "/20261123/us-east-1/s3/aws5_request")) {
            assertFails(withHeader(get, "authorization",
                    authorization.replace("/20261123/us-east-1/s3/aws4_request", scope)),
                    "AuthorizationHeaderMalformed", 400);
        }
        assertFails(withHeader(get, "authorization", authorization.replaceAll(", Signature=[0-9a-f]+", "")),
                "AuthorizationHeaderMalformed", 400);
        assertFails(withHeader(get, "authorization", authorization.replaceAll("SignedHeaders=[^,]+", "SignedHeaders=")),
                "AuthorizationHeaderMalformed", 400);
        assertFails(withHeader(get, "authorization", "AWS4-HMAC-SHA256 garbage"), "AuthorizationHeaderMalformed", 400);
    }

    @Test
    void requiredHeaders() {
        IncomingRequest get = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null, s -> { })
                .request());

        assertFails(withHeader(get, "x-amz-content-sha256", null), "InvalidRequest", 400);
        assertFails(withHeader(get, "x-amz-content-sha256", "SHA256-OF-SOMETHING"), "InvalidArgument", 400);
        assertFails(withHeader(get, "x-amz-date", null), "AccessDenied", 403);
        assertFails(withHeader(get, "x-amz-date", "2026-11-23T10:00:00Z"), "AccessDenied", 403);
        assertFails(withHeader(get, "x-amz-meta-unsigned", "v"), "AccessDenied", 403);
        assertFails(withHeader(get, "host", "elsewhere:8080"), "SignatureDoesNotMatch", 403);
        assertFails(withHeader(get, "host", null), "SignatureDoesNotMatch", 403);
        String signedHeaders = "SignedHeaders=host;x-amz-content-sha256;x-amz-date";
        assertFails(withHeader(get, "authorization",
                get.header("authorization").replace(signedHeaders, "SignedHeaders=x-amz-content-sha256;x-amz-date")),
                "AccessDenied", 403);
    }

    @Test
    void otherAuthorizationSchemes() {
        IncomingRequest get = incoming(sign(request(SdkHttpMethod.GET, "http", "k").build(), null, s -> { })
                .request());

        assertFails(withHeader(get, "authorization", "AWS " + ACCESS_KEY + ":frJIUN8DYpKDtOLCwo//yllqDzg="),
                "InvalidRequest", 400);
        assertFails(withHeader(get, "authorization", "Bearer abc"), "InvalidArgument", 400);
        assertFails(withQuery(get, "AWSAccessKeyId=" + ACCESS_KEY), "InvalidArgument", 400);
        assertFails(withHeader(withQuery(get, "AWSAccessKeyId=" + ACCESS_KEY + "&Expires=1&Signature=x"),
                "authorization", null), "InvalidRequest", 400);
    }

    @Test
    void anonymousOnlyWhenAllowed() {
        IncomingRequest anonymous = new IncomingRequest("GET", "/granary/k", null, Map.of("host", List.of("h")));

        assertFails(anonymous, "AccessDenied", 403);
        assertThat(new SigV4Verifier(SdkClient::secret, SdkClient.REGION, true, Clock.systemUTC()).verify(anonymous))
                .isEqualTo(new Principal(null, PayloadMode.ANONYMOUS, null, null, -1, null));
    }

    @Test
    void presignedGetAndPut() {
        for (SdkHttpMethod method : new SdkHttpMethod[] {SdkHttpMethod.GET, SdkHttpMethod.PUT}) {
            IncomingRequest presigned = incoming(sign(request(method, "https", "reports/2026 Q4 é+.csv").build(),
                    null, s -> presign(s, Duration.ofMinutes(15))).request());
            assertThat(presigned.header("authorization")).isNull();

            assertThat(verifier.verify(presigned))
                    .isEqualTo(new Principal(ACCESS_KEY, PayloadMode.UNSIGNED, null, null, -1, null));

            String query = presigned.rawQuery();
            assertFails(withQuery(presigned, query.replace("X-Amz-Expires=900", "X-Amz-Expires=901")),
                    "SignatureDoesNotMatch", 403);
            assertFails(withQuery(presigned, query + "&response-content-type=text%2Fhtml"),
                    "SignatureDoesNotMatch", 403);
            assertFails(withPath(presigned, presigned.rawPath() + "x"), "SignatureDoesNotMatch", 403);
            assertFails(withQuery(presigned, query.replaceAll("X-Amz-Signature=[0-9a-f]{4}", "X-Amz-Signature=0000")),
                    "SignatureDoesNotMatch", 403);
            assertFails(presigned, verifierAt(Duration.ofMinutes(20)), "AccessDenied", 403);
            assertFails(presigned, verifierAt(Duration.ofMinutes(-20)), "AccessDenied", 403);
            assertThat(verifierAt(Duration.ofMinutes(14)).verify(presigned).accessKeyId()).isEqualTo(ACCESS_KEY);
        }
    }

    @Test
    void presignedParametersAsS3ChecksThem() {
        IncomingRequest presigned = incoming(sign(request(SdkHttpMethod.GET, "https", "k").build(), null,
                s -> presign(s, Duration.ofDays(7))).request());
        String query = presigned.rawQuery();
        assertThat(verifier.verify(presigned).accessKeyId()).isEqualTo(ACCESS_KEY);

        assertFailsWith(withQuery(presigned, query.replace("X-Amz-Expires=604800", "X-Amz-Expires=604801")),
                "AuthorizationQueryParametersError", 400, "604800");
        assertFailsWith(withQuery(presigned, query.replace("X-Amz-Expires=604800", "X-Amz-Expires=-1")),
                "AuthorizationQueryParametersError", 400, "non-negative");
        assertFailsWith(withQuery(presigned, query.replace("X-Amz-Expires=604800", "X-Amz-Expires=week")),
                "AuthorizationQueryParametersError", 400, "number");
        assertFailsWith(withQuery(presigned, query.replace("X-Amz-Expires=604800", "X-Amz-Expires=0")),
                "AccessDenied", 403, "Request has expired");
        assertFailsWith(withQuery(presigned, query.replaceAll("X-Amz-Date=[0-9TZ]+&?", "")),
                "AuthorizationQueryParametersError", 400, "requires");
        assertFailsWith(withQuery(presigned, query.replace("X-Amz-Date=20261123T100000Z", "X-Amz-Date=20261123")),
                "AuthorizationQueryParametersError", 400, "ISO8601");
        assertFailsWith(withQuery(presigned, query.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1")),
                "AuthorizationQueryParametersError", 400, "X-Amz-Algorithm");
        assertFailsWith(withQuery(presigned, query.replace("%2Fus-east-1%2F", "%2Feu-west-1%2F")),
                "AuthorizationQueryParametersError", 400, "the region 'eu-west-1' is wrong; expecting 'us-east-1'");
        assertFails(withHeader(presigned, "authorization", "AWS4-HMAC-SHA256 Credential=x"), "InvalidArgument", 400);
        assertFails(withHeader(presigned, "x-amz-meta-unsigned", "v"), "AccessDenied", 403);
    }

    @Test
    void presignedWithAPayloadHashInTheQuery() {
        String hash = sha256Hex("hello");
        var builder = request(SdkHttpMethod.PUT, "https", "k");
        builder.putRawQueryParameter("X-Amz-Content-Sha256", hash);
        IncomingRequest presigned = incoming(sign(builder.build(), null,
                s -> s.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                        .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5))
                        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, true)
                        .payload(ContentStreamProvider.fromUtf8String("hello")))
                .request());

        assertThat(verifier.verify(presigned))
                .isEqualTo(new Principal(ACCESS_KEY, PayloadMode.SIGNED, hash, null, -1, null));
        assertFails(withQuery(presigned, presigned.rawQuery().replace(hash, sha256Hex("other"))),
                "SignatureDoesNotMatch", 403);
    }

    /** As S3Presigner signs: in the query, and UNSIGNED-PAYLOAD (the SDK signer's default is to hash the payload). */
    private static void presign(SignRequest.Builder<AwsCredentialsIdentity> sign, Duration expiry) {
        sign.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, expiry)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false);
    }

    private void assertFails(IncomingRequest request, String code, int status) {
        assertFails(request, verifier, code, status);
    }

    static void assertFails(IncomingRequest request, SigV4Verifier verifier, String code, int status) {
        assertThatThrownBy(() -> verifier.verify(request)).isInstanceOfSatisfying(AuthFailure.class, f -> {
            assertThat(f.code()).as(f.getMessage()).isEqualTo(code);
            assertThat(f.status()).isEqualTo(status);
        });
    }

    private void assertFailsWith(IncomingRequest request, String code, int status, String message) {
        assertThatThrownBy(() -> verifier.verify(request)).isInstanceOfSatisfying(AuthFailure.class, f -> {
            assertThat(f.code()).as(f.getMessage()).isEqualTo(code);
            assertThat(f.status()).isEqualTo(status);
            assertThat(f.getMessage()).contains(message);
        });
    }

    private static SigV4Verifier verifierAt(Duration offset) {
        return verifier(Clock.fixed(NOW.plus(offset), ZoneOffset.UTC));
    }

    static String sha256Hex(String s) {
        return SigV4Crypto.sha256Hex(s);
    }
}
