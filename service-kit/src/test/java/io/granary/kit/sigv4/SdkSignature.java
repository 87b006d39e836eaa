package io.granary.kit.sigv4;

import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner.AuthLocation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.SignerConstant;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The expected signature from the AWS SDK's own signer, for the requests it reproduces exactly. We hand it the
 * request as received (canonical path, decoded query, only the signed headers) with the client's time as the
 * signing clock. What it does to a request before signing (read from http-auth-aws 2.57.8) decides what it can
 * reproduce:
 * <ul>
 * <li>The payload hash is not a property: with PAYLOAD_SIGNING_ENABLED=false it signs UNSIGNED-PAYLOAD; with true it
 * hashes the payload it is given, so an empty payload reproduces the empty body's hash. Any other hash needs the
 * body, which is not here yet. Its STREAMING-* values come only with CHUNK_ENCODING_ENABLED, which also rewrites
 * Content-Length for its own 128 KiB chunks and appends to Content-Encoding, so a client's chunked request cannot
 * be replayed through it.</li>
 * <li>The header form always signs X-Amz-Date (a client may sign Date instead), and its canonical request leaves out
 * connection, expect, transfer-encoding, user-agent, x-amzn-trace-id and x-forwarded-for even when a client signed
 * them (the SDK for Java v1, as Hadoop's S3A uses it, signs user-agent and expect).</li>
 * <li>The presigned form takes x-amz-content-sha256 out of the signed headers.</li>
 * </ul>
 * Everything else goes to {@link CanonicalRequest}.
 */
final class SdkSignature {

    private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();
    private static final Set<String> NEVER_SIGNED =
            Set.of("connection", "expect", "transfer-encoding", "user-agent", "x-amzn-trace-id", "x-forwarded-for");
    private static final Set<String> METHODS =
            Arrays.stream(SdkHttpMethod.values()).map(Enum::name).collect(Collectors.toUnmodifiableSet());

    private SdkSignature() {
    }

    /**
     * Whether the SDK signs exactly what the client signed. The header form's x-amz-content-sha256 and host are signed
     * by then (the verifier insists on it), so the SDK adding them changes nothing.
     */
    static boolean canReproduce(Claim claim, SigningInput input) {
        String hash = input.payloadHash();
        return (SignerConstant.UNSIGNED_PAYLOAD.equals(hash) || SigV4Crypto.EMPTY_SHA256.equals(hash))
                && METHODS.contains(input.method())
                && input.headers().keySet().stream().noneMatch(NEVER_SIGNED::contains)
                && (claim.presigned()
                        ? !input.headers().containsKey("x-amz-content-sha256")
                        : input.headers().containsKey("x-amz-date"));
    }

    static String signature(Claim claim, SigningInput input, String secretKey) {
        SdkHttpRequest.Builder http = SdkHttpRequest.builder()
                .protocol("https")
                .host("gateway.invalid") // never signed: the client's Host header is among the headers
                .method(SdkHttpMethod.valueOf(input.method()))
                .encodedPath(input.path());
        input.query().forEach(p -> http.appendRawQueryParameter(p.name(), p.value()));
        input.headers().forEach(http::putHeader);

        boolean unsigned = SignerConstant.UNSIGNED_PAYLOAD.equals(input.payloadHash());
        SignRequest.Builder<AwsCredentialsIdentity> sign =
                SignRequest.builder(AwsCredentialsIdentity.create(claim.accessKeyId(), secretKey))
                        .request(http.build())
                        .putProperty(AwsV4HttpSigner.REGION_NAME, claim.region())
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(claim.time(), ZoneOffset.UTC))
                        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, !unsigned);
        if (!unsigned) {
            sign.payload(ContentStreamProvider.fromByteArray(new byte[0]));
        }
        if (claim.presigned()) {
            sign.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                    .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofSeconds(claim.expiresSeconds()));
        }
        SdkHttpRequest signed = SIGNER.sign(sign.build()).request();
        if (claim.presigned()) {
            return signed.firstMatchingRawQueryParameter(SignerConstant.X_AMZ_SIGNATURE).orElseThrow();
        }
        String authorization = signed.firstMatchingHeader(SignerConstant.AUTHORIZATION).orElseThrow();
        return authorization.substring(authorization.indexOf("Signature=") + "Signature=".length());
    }
}
