package io.granary.kit.sigv4;

import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The reference client: the AWS SDK's own SigV4 signer, configured as the S3 client configures it, and the
 * conversion of what it signs into what our HTTP server would see.
 */
final class SdkClient {

    static final String ACCESS_KEY = "AKIDGRANARYTEST";
    static final String SECRET = "granary/secret+key=test";
    static final String REGION = "us-east-1";
    static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");

    private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();

    private SdkClient() {
    }

    static SigV4Verifier verifier() {
        return verifier(Clock.fixed(NOW, ZoneOffset.UTC));
    }

    static SigV4Verifier verifier(Clock clock) {
        return new SigV4Verifier(SdkClient::secret, REGION, false, clock);
    }

    static Optional<String> secret(String accessKeyId) {
        return ACCESS_KEY.equals(accessKeyId) ? Optional.of(SECRET) : Optional.empty();
    }

    /** A path-style request for a key, its path encoded as the S3 client encodes it. */
    static SdkHttpRequest.Builder request(SdkHttpMethod method, String protocol, String key) {
        return SdkHttpRequest.builder()
                .method(method)
                .protocol(protocol)
                .host("localhost")
                .port(8080)
                .encodedPath("/granary" + (key.isEmpty() ? "" : "/" + SdkHttpUtils.urlEncodeIgnoreSlashes(key)));
    }

    /** Signs as of {@link #NOW} with the test credentials; properties adds or overrides signer properties. */
    static SignedRequest sign(SdkHttpRequest request, byte[] payload,
                              Consumer<SignRequest.Builder<AwsCredentialsIdentity>> properties) {
        return sign(request, payload, ACCESS_KEY, SECRET, REGION, properties);
    }

    static SignedRequest sign(SdkHttpRequest request, byte[] payload, String accessKey, String secret, String region,
                              Consumer<SignRequest.Builder<AwsCredentialsIdentity>> properties) {
        SignRequest.Builder<AwsCredentialsIdentity> sign =
                SignRequest.builder(AwsCredentialsIdentity.create(accessKey, secret))
                        .request(request)
                        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(NOW, ZoneOffset.UTC));
        if (payload != null) {
            sign.payload(ContentStreamProvider.fromByteArray(payload));
        }
        properties.accept(sign);
        return SIGNER.sign(sign.build());
    }

    /** What the server sees of a request the SDK signed: the raw request line and lower-cased header names. */
    static IncomingRequest incoming(SdkHttpRequest signed) {
        return incoming(signed.method().name(), signed.getUri(), signed.headers());
    }

    static IncomingRequest incoming(String method, URI uri, Map<String, List<String>> headers) {
        Map<String, List<String>> lower = new LinkedHashMap<>();
        headers.forEach((name, values) -> lower.put(name.toLowerCase(Locale.ROOT), List.copyOf(values)));
        return new IncomingRequest(method, uri.getRawPath(), uri.getRawQuery(), lower);
    }

    static byte[] body(SignedRequest signed) {
        try (InputStream in = signed.payload().orElseThrow().newStream()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static IncomingRequest withHeader(IncomingRequest request, String name, String value) {
        Map<String, List<String>> headers = new LinkedHashMap<>(request.headers());
        if (value == null) {
            headers.remove(name);
        } else {
            headers.put(name, List.of(value));
        }
        return new IncomingRequest(request.method(), request.rawPath(), request.rawQuery(), headers);
    }

    static IncomingRequest withPath(IncomingRequest request, String rawPath) {
        return new IncomingRequest(request.method(), rawPath, request.rawQuery(), request.headers());
    }

    static IncomingRequest withQuery(IncomingRequest request, String rawQuery) {
        return new IncomingRequest(request.method(), request.rawPath(), rawQuery, request.headers());
    }
}
