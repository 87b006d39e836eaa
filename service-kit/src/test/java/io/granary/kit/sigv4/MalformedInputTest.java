package io.granary.kit.sigv4;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner.AuthLocation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.granary.kit.sigv4.SdkClient.incoming;
import static io.granary.kit.sigv4.SdkClient.request;
import static io.granary.kit.sigv4.SdkClient.sign;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Whatever arrives, the only thing that comes out besides a Principal is an AuthFailure. */
class MalformedInputTest {

    private static final String[] PIECES = {"", " ", "%", "%2", "%zz", "%FF%FE", "+", "=", "&", ";", ",", "/", "\t",
            "é", "😀", "\uD800", "AWS4-HMAC-SHA256", "Credential=", "SignedHeaders=", "Signature=", "X-Amz-Date=",
            "X-Amz-Expires=", "99999999999999999999", "-1", "20261123T100000Z", "aws4_request", "STREAMING-", "0x10",
            "host", "x-amz-date", "\r\n", "\0"};

    private final SigV4Verifier verifier = SdkClient.verifier();
    private final Random random = new Random(20261123);

    @Test
    void mutatedRequests() {
        List<IncomingRequest> valid = List.of(
                incoming(sign(request(SdkHttpMethod.GET, "http", "k").putRawQueryParameter("prefix", "").build(),
                        null, s -> { }).request()),
                incoming(sign(request(SdkHttpMethod.PUT, "http", "k").build(), new byte[] {1},
                        s -> s.putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, true)).request()),
                incoming(sign(request(SdkHttpMethod.GET, "https", "k").build(), null,
                        s -> s.putProperty(AwsV4HttpSigner.AUTH_LOCATION, AuthLocation.QUERY_STRING)
                                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5))
                                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)).request()));

        for (int i = 0; i < 5_000; i++) {
            IncomingRequest request = mutate(valid.get(random.nextInt(valid.size())));
            Throwable thrown = catchThrowable(() -> verifier.verify(request));
            assertThat(thrown).as("%s", request).satisfiesAnyOf(
                    t -> assertThat(t).isNull(), t -> assertThat(t).isInstanceOf(AuthFailure.class));
        }
    }

    @Test
    void randomBodies() {
        Principal unsigned = new Principal("AK", PayloadMode.STREAMING_UNSIGNED_TRAILER, null, null, -1,
                "x-amz-checksum-crc32");
        Principal signed = new Principal("AK", PayloadMode.STREAMING_SIGNED_TRAILER, null,
                new ChunkSigner(new byte[32], "20261123T100000Z", "20261123/us-east-1/s3/aws4_request", "0"), 10,
                "x-amz-checksum-sha256");
        for (int i = 0; i < 5_000; i++) {
            StringBuilder body = new StringBuilder();
            for (int p = random.nextInt(12); p > 0; p--) {
                body.append(random.nextBoolean() ? PIECES[random.nextInt(PIECES.length)]
                        : List.of("0", "1", "a", "10", "ffff", ";chunk-signature=", "\r\n", "x-amz-checksum-crc32:",
                                "x-amz-trailer-signature:").get(random.nextInt(9)));
            }
            for (Principal principal : List.of(unsigned, signed)) {
                AwsChunkedDecoder decoder = new AwsChunkedDecoder(principal);
                Throwable thrown = catchThrowable(() -> {
                    decoder.feed(Buffer.buffer(body.toString()), b -> { });
                    decoder.end();
                });
                assertThat(thrown).as(body.toString()).isInstanceOf(AuthFailure.class);
            }
        }
    }

    private IncomingRequest mutate(IncomingRequest request) {
        String method = request.method();
        String path = request.rawPath();
        String query = request.rawQuery();
        Map<String, List<String>> headers = new LinkedHashMap<>(request.headers());
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            switch (random.nextInt(6)) {
                case 0 -> method = random.nextBoolean() ? "BREW" : "";
                case 1 -> path = splice(path);
                case 2 -> query = query == null ? piece() : splice(query);
                case 3 -> {
                    String name = List.copyOf(headers.keySet()).get(random.nextInt(headers.size()));
                    headers.put(name, random.nextInt(10) == 0 ? List.of() : List.of(splice(headers.get(name)
                            .stream().findFirst().orElse(""))));
                }
                case 4 -> headers.put(random.nextBoolean() ? "x-amz-" + piece() : piece(), List.of(piece()));
                default -> headers.remove(List.copyOf(headers.keySet()).get(random.nextInt(headers.size())));
            }
            if (headers.isEmpty()) {
                headers.put("host", List.of("localhost:8080"));
            }
        }
        return new IncomingRequest(method, path, query, headers);
    }

    private String splice(String value) {
        int from = random.nextInt(value.length() + 1);
        int to = Math.min(value.length(), from + random.nextInt(8));
        return value.substring(0, from) + piece() + value.substring(to);
    }

    private String piece() {
        return PIECES[random.nextInt(PIECES.length)];
    }
}
