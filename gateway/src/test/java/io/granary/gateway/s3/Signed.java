package io.granary.gateway.s3;

import io.granary.devstack.testing.S3Resource;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.function.Consumer;

/**
 * A raw request signed by the AWS SDK's own signer: for what the S3 client will not send (garbage XML, ?acl), and
 * for management calls signed as any AWS-signing client signs them.
 */
final class Signed {

    private Signed() {
    }

    static HttpResponse<String> send(URI gateway, String method, String pathAndQuery, byte[] body) throws Exception {
        return send(gateway, S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY, method, pathAndQuery, body, body);
    }

    /** Signed with the given keys for {@code signedBody}, and sent with {@code body} (the same, or a forgery). */
    static HttpResponse<String> send(URI gateway, String accessKey, String secretKey, String method,
                                     String pathAndQuery, byte[] signedBody, byte[] body) throws Exception {
        return send(request(gateway, accessKey, secretKey, method, pathAndQuery, signedBody, sign -> { })
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    /**
     * The request signed for {@code signedBody} as {@code signing} also says (PAYLOAD_SIGNING_ENABLED false for
     * UNSIGNED-PAYLOAD; AUTH_LOCATION QUERY_STRING for a presigned URL), its method and body still to be set.
     */
    static HttpRequest.Builder request(URI gateway, String accessKey, String secretKey, String method,
                                       String pathAndQuery, byte[] signedBody,
                                       Consumer<SignRequest.Builder<AwsCredentialsIdentity>> signing) {
        URI uri = gateway.resolve(pathAndQuery);
        // Signed as for HTTPS, which the signature does not cover: over HTTP the SDK signs every payload.
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder().uri(uri).protocol("https")
                .method(SdkHttpMethod.fromValue(method));
        if (signedBody != null && pathAndQuery.startsWith("/api/")) {
            unsigned.putHeader("Content-Type", "application/json");
        }
        SdkHttpRequest request = unsigned.build();
        SignedRequest signed = AwsV4HttpSigner.create().sign(sign -> {
            sign.request(request)
                    .payload(signedBody == null ? null : ContentStreamProvider.fromByteArray(signedBody))
                    .identity(AwsCredentialsIdentity.create(accessKey, secretKey))
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false);
            signing.accept(sign);
        });
        boolean presigned = signed.request().firstMatchingRawQueryParameter("X-Amz-Signature").isPresent();
        HttpRequest.Builder http = HttpRequest.newBuilder(!presigned ? uri : URI.create(uri.getScheme() + "://"
                + uri.getRawAuthority() + uri.getRawPath() + "?" + signed.request().encodedQueryParameters().get()));
        signed.request().headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                values.forEach(value -> http.header(name, value));
            }
        });
        return http;
    }

    static HttpResponse<String> send(HttpRequest request) throws Exception {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(request,
                HttpResponse.BodyHandlers.ofString());
    }
}
