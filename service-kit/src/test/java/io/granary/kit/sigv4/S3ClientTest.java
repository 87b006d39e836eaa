package io.granary.kit.sigv4;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.utils.IoUtils;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static io.granary.kit.sigv4.SdkClient.ACCESS_KEY;
import static io.granary.kit.sigv4.SdkClient.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the real S3 client sends (its own path encoding, query forms, payload modes and default checksums), caught
 * by an HTTP client that answers locally, and S3Presigner's URLs.
 */
class S3ClientTest {

    private static final List<String> KEYS = List.of("plain.txt", "dir/a b+c=d~e%f.csv", "é/文字 😀.bin",
            "x=y&z?w#v", "!'()*,;:@$");

    private final SigV4Verifier verifier = SdkClient.verifier(Clock.systemUTC());

    @Test
    void whatTheS3ClientSendsOverHttpAndHttps() {
        byte[] data = new byte[300_000];
        new Random(7).nextBytes(data);
        for (String scheme : List.of("http", "https")) {
            LocalHttp http = new LocalHttp();
            try (S3Client s3 = client(http, scheme)) {
                for (String key : KEYS) {
                    s3.putObject(b -> b.bucket("granary").key(key).metadata(Map.of("owner", "ml team")),
                            RequestBody.fromBytes(data));
                    s3.putObject(b -> b.bucket("granary").key(key + ".empty"), RequestBody.empty());
                    http.respond("0123456789");
                    s3.getObject(b -> b.bucket("granary").key(key).range("bytes=0-9"));
                    s3.headObject(b -> b.bucket("granary").key(key));
                    s3.deleteObject(b -> b.bucket("granary").key(key));
                }
                http.respond("<ListBucketResult><Name>granary</Name></ListBucketResult>");
                s3.listObjectsV2(b -> b.bucket("granary").prefix(""));
                s3.listObjectsV2(b -> b.bucket("granary").prefix("dir/a b+").delimiter("/").startAfter("é"));
                http.respond("<InitiateMultipartUploadResult><UploadId>2~up+load/id=</UploadId>"
                        + "</InitiateMultipartUploadResult>");
                String uploadId = s3.createMultipartUpload(b -> b.bucket("granary").key("big object.bin")).uploadId();
                s3.uploadPart(b -> b.bucket("granary").key("big object.bin").uploadId(uploadId).partNumber(1),
                        RequestBody.fromBytes(data));
                http.respond("<CompleteMultipartUploadResult></CompleteMultipartUploadResult>");
                s3.completeMultipartUpload(b -> b.bucket("granary").key("big object.bin").uploadId(uploadId)
                        .multipartUpload(CompletedMultipartUpload.builder()
                                .parts(CompletedPart.builder().partNumber(1).eTag("\"e\"").build()).build()));
            }

            Set<PayloadMode> modes = EnumSet.noneOf(PayloadMode.class);
            for (LocalHttp.Sent sent : http.sent) {
                IncomingRequest request = sent.request();
                Principal principal = verifier.verify(request);
                modes.add(principal.payload());
                assertThat(principal.accessKeyId()).as("%s %s?%s", request.method(), request.rawPath(),
                        request.rawQuery()).isEqualTo(ACCESS_KEY);
                if (principal.payload() == PayloadMode.SIGNED) {
                    assertThat(principal.payloadSha256()).isEqualTo(SigV4Crypto.hex(
                            SigV4Crypto.sha256().digest(sent.body())));
                } else if (principal.payload() != PayloadMode.UNSIGNED) {
                    byte[] decoded = AwsChunkedDecoderTest.decode(principal, sent.body(), 4093);
                    assertThat(decoded).hasSize((int) principal.decodedContentLength());
                    if (request.rawPath().endsWith(".empty")) {
                        assertThat(decoded).isEmpty();
                    } else {
                        assertThat(decoded).isEqualTo(data);
                    }
                }
            }
            assertThat(modes).as("payload modes the client used over %s", scheme).containsExactlyInAnyOrder(
                    scheme.equals("http")
                            ? new PayloadMode[] {PayloadMode.UNSIGNED, PayloadMode.SIGNED,
                                    PayloadMode.STREAMING_SIGNED_TRAILER}
                            : new PayloadMode[] {PayloadMode.UNSIGNED, PayloadMode.STREAMING_UNSIGNED_TRAILER});
        }
    }

    @Test
    void s3PresignerUrls() {
        try (S3Presigner presigner = S3Presigner.builder()
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET)))
                .endpointOverride(URI.create("http://localhost:8080"))
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(true).build())
                .build()) {
            for (String key : KEYS) {
                var get = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(10))
                        .getObjectRequest(g -> g.bucket("granary").key(key).responseContentDisposition("attachment")));
                var put = presigner.presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(10))
                        .putObjectRequest(o -> o.bucket("granary").key(key).contentType("text/csv")));
                for (var presigned : List.of(get.httpRequest(), put.httpRequest())) {
                    IncomingRequest request = SdkClient.incoming(presigned);
                    assertThat(verifier.verify(request))
                            .isEqualTo(new Principal(ACCESS_KEY, PayloadMode.UNSIGNED, null, null, -1, null));
                    SigV4VerifierTest.assertFails(request,
                            SdkClient.verifier(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(11))),
                            "AccessDenied", 403);
                    SigV4VerifierTest.assertFails(SdkClient.withPath(request, request.rawPath() + "2"), verifier,
                            "SignatureDoesNotMatch", 403);
                }
            }
        }
    }

    private static S3Client client(SdkHttpClient http, String scheme) {
        return S3Client.builder()
                .httpClient(http)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET)))
                .endpointOverride(URI.create(scheme + "://localhost:8080"))
                .forcePathStyle(true)
                .build();
    }

    /** Answers every request with 200 and the next canned body, keeping what was sent as our server would see it. */
    private static final class LocalHttp implements SdkHttpClient {

        record Sent(IncomingRequest request, byte[] body) {
        }

        final List<Sent> sent = new ArrayList<>();
        private byte[] response = new byte[0];

        void respond(String body) {
            response = body.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() throws IOException {
                    byte[] body = new byte[0];
                    if (request.contentStreamProvider().isPresent()) {
                        try (InputStream in = request.contentStreamProvider().get().newStream()) {
                            body = IoUtils.toByteArray(in);
                        }
                    }
                    sent.add(new Sent(SdkClient.incoming(request.httpRequest()), body));
                    byte[] answer = response;
                    response = new byte[0];
                    return HttpExecuteResponse.builder()
                            .response(SdkHttpResponse.builder().statusCode(200)
                                    .putHeader("ETag", "\"e\"")
                                    .putHeader("Content-Length", Integer.toString(answer.length))
                                    .build())
                            .responseBody(AbortableInputStream.create(new ByteArrayInputStream(answer)))
                            .build();
                }

                @Override
                public void abort() {
                }
            };
        }

        @Override
        public void close() {
        }
    }
}
