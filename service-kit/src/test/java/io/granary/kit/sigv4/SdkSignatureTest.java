package io.granary.kit.sigv4;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner.AuthLocation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;

import java.time.Duration;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static io.granary.kit.sigv4.SdkClient.SECRET;
import static io.granary.kit.sigv4.SdkClient.incoming;
import static io.granary.kit.sigv4.SdkClient.request;
import static io.granary.kit.sigv4.SdkClient.sign;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which requests the SDK's signer computes the expected signature for, and that it and the JCA canonical request
 * agree with what the client signed, each on its own.
 */
class SdkSignatureTest {

    @Test
    void theSdkSignerTakesUnsignedAndEmptyPayloadsHeaderAndPresigned() {
        IncomingRequest emptyBody = incoming(sign(request(SdkHttpMethod.GET, "http", "a b/é+.txt")
                .putRawQueryParameter("versionId", "v 1").build(), null, s -> { }).request());
        IncomingRequest unsigned = incoming(sign(request(SdkHttpMethod.PUT, "https", "k").build(), new byte[] {1},
                s -> s.putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request());
        IncomingRequest presigned = incoming(sign(request(SdkHttpMethod.GET, "https", "k").build(), null,
                s -> s.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                        .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5))
                        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request());

        for (IncomingRequest request : List.of(emptyBody, unsigned, presigned)) {
            Claim claim = claim(request);
            SigningInput input = input(request, claim);
            assertThat(SdkSignature.canReproduce(claim, input)).isTrue();
            assertThat(SdkSignature.signature(claim, input, SECRET)).isEqualTo(claim.signature());
            assertThat(CanonicalRequest.signature(input, SigV4Crypto.signingKey(SECRET, claim.scopeDate(),
                    claim.region()))).isEqualTo(claim.signature());
        }
    }

    @Test
    void theRestIsForTheCanonicalRequest() {
        IncomingRequest signedBody = incoming(sign(request(SdkHttpMethod.PUT, "http", "k").build(), new byte[] {1},
                s -> { }).request());
        IncomingRequest chunked = incoming(sign(request(SdkHttpMethod.PUT, "http", "k").build(), new byte[] {1},
                s -> s.putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, true)).request());

        for (IncomingRequest request : List.of(signedBody, chunked)) {
            Claim claim = claim(request);
            SigningInput input = input(request, claim);
            assertThat(SdkSignature.canReproduce(claim, input)).isFalse();
            assertThat(CanonicalRequest.signature(input, SigV4Crypto.signingKey(SECRET, claim.scopeDate(),
                    claim.region()))).isEqualTo(claim.signature());
        }
    }

    @Test
    void headerValuesAreTrimmedAndTheirWhitespaceCollapsedAsTheSdkDoes() {
        for (String value : List.of("plain", "two  spaces", " \tled and trailed\t ", "tab\tinside", "a \t b", "")) {
            IncomingRequest request = incoming(sign(request(SdkHttpMethod.GET, "http", "k")
                    .putHeader("x-amz-meta-note", value).build(), null, s -> { }).request());
            Claim claim = claim(request);

            assertThat(claim.signedHeaders()).contains("x-amz-meta-note");
            assertThat(CanonicalRequest.signature(input(request, claim), SigV4Crypto.signingKey(SECRET,
                    claim.scopeDate(), claim.region()))).as("'%s'", value).isEqualTo(claim.signature());
        }
    }

    private static Claim claim(IncomingRequest request) {
        String authorization = request.header("authorization");
        return authorization != null ? Claim.fromAuthorization(authorization, request)
                : Claim.fromQuery(UriEncoding.queryParameters(request.rawQuery()));
    }

    private static SigningInput input(IncomingRequest request, Claim claim) {
        TreeMap<String, List<String>> headers = new TreeMap<>();
        claim.signedHeaders().forEach(h -> headers.put(h, request.headers().get(h)));
        String hash = claim.presigned() ? "UNSIGNED-PAYLOAD" : request.header("x-amz-content-sha256");
        return new SigningInput(request.method(), UriEncoding.canonicalPath(request.rawPath()),
                UriEncoding.queryParameters(request.rawQuery()).stream()
                        .filter(p -> !p.name().equals("X-Amz-Signature")).collect(Collectors.toList()),
                headers, hash, claim.timestamp(), claim.scope());
    }
}
