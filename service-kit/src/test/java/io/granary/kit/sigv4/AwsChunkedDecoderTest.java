package io.granary.kit.sigv4;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.checksums.spi.ChecksumAlgorithm;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static io.granary.kit.sigv4.SdkClient.ACCESS_KEY;
import static io.granary.kit.sigv4.SdkClient.incoming;
import static io.granary.kit.sigv4.SdkClient.request;
import static io.granary.kit.sigv4.SdkClient.sign;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** aws-chunked bodies the SDK signer encodes, fed to the decoder in every kind of split. */
class AwsChunkedDecoderTest {

    /** The SDK signer's chunk size. */
    private static final int CHUNK = 128 * 1024;

    private final SigV4Verifier verifier = SdkClient.verifier();

    /** A streaming upload as the SDK signer encodes it: signed chunks, with or without a signed checksum trailer. */
    private static Upload upload(int size, boolean signed, ChecksumAlgorithm checksum) {
        byte[] payload = new byte[size];
        new Random(size).nextBytes(payload);
        SignedRequest request = sign(request(SdkHttpMethod.PUT, "https", "uploads/object.bin").build(), payload, s -> {
            s.putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, true)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, signed);
            if (checksum != null) {
                s.putProperty(AwsV4HttpSigner.CHECKSUM_ALGORITHM, checksum);
            }
        });
        return new Upload(payload, incoming(request.request()), SdkClient.body(request));
    }

    private record Upload(byte[] payload, IncomingRequest request, byte[] body) {
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8191, CHUNK, CHUNK + 1, 3 * CHUNK + 12345})
    void signedChunksRoundTripInAnySplit(int size) {
        Upload upload = upload(size, true, null);
        Principal principal = verifier.verify(upload.request());
        assertThat(principal.payload()).isEqualTo(PayloadMode.STREAMING_SIGNED);
        assertThat(principal.decodedContentLength()).isEqualTo(size);
        assertThat(principal.chunks().seed())
                .isEqualTo(upload.request().header("authorization").replaceAll(".*Signature=", ""));

        for (int split : new int[] {1, 7, 8192, Integer.MAX_VALUE}) {
            assertThat(decode(principal, upload.body(), split)).as("split %d", split).isEqualTo(upload.payload());
        }
        assertThat(decodeRandomly(principal, upload.body())).isEqualTo(upload.payload());
    }

    @ParameterizedTest
    @ValueSource(strings = {"CRC32", "CRC32C", "SHA1", "SHA256"})
    void trailingChecksumsSignedAndUnsigned(String algorithm) {
        ChecksumAlgorithm checksum = checksum(algorithm);
        for (int size : new int[] {0, 1, CHUNK, 2 * CHUNK + 7}) {
            for (boolean signed : new boolean[] {true, false}) {
                Upload upload = upload(size, signed, checksum);
                Principal principal = verifier.verify(upload.request());
                assertThat(principal.payload()).isEqualTo(
                        signed ? PayloadMode.STREAMING_SIGNED_TRAILER : PayloadMode.STREAMING_UNSIGNED_TRAILER);
                assertThat(principal.trailer()).isEqualTo("x-amz-checksum-" + algorithm.toLowerCase());
                assertThat(principal.chunks() == null).isEqualTo(!signed);

                for (int split : new int[] {1, 7, Integer.MAX_VALUE}) {
                    assertThat(decode(principal, upload.body(), split))
                            .as("%s %d bytes, signed %s, split %d", algorithm, size, signed, split)
                            .isEqualTo(upload.payload());
                }
            }
        }
    }

    @Test
    void aTamperedByteInAChunk() {
        Upload signed = upload(2 * CHUNK + 100, true, null);
        Principal principal = verifier.verify(signed.request());
        assertThat(decodeFailure(principal, flipByteOfSecondChunk(signed.body()))).isEqualTo("SignatureDoesNotMatch");

        Upload unsigned = upload(2 * CHUNK + 100, false, DefaultChecksumAlgorithm.CRC32);
        Principal unsignedPrincipal = verifier.verify(unsigned.request());
        assertThat(decodeFailure(unsignedPrincipal, flipByteOfSecondChunk(unsigned.body()))).isEqualTo("BadDigest");
    }

    @Test
    void aTamperedTrailer() {
        Upload upload = upload(1000, true, DefaultChecksumAlgorithm.CRC32);
        Principal principal = verifier.verify(upload.request());
        String body = new String(upload.body(), StandardCharsets.ISO_8859_1);
        String crc = body.replaceAll("(?s).*x-amz-checksum-crc32:([^\r]+)\r\n.*", "$1");

        String otherChecksum = body.replace("x-amz-checksum-crc32:" + crc, "x-amz-checksum-crc32:AAAAAA==");
        assertThat(decodeFailure(principal, otherChecksum.getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo("SignatureDoesNotMatch");
        String noSignature = body.replaceAll("x-amz-trailer-signature:[0-9a-f]+\r\n", "");
        assertThat(decodeFailure(principal, noSignature.getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo("SignatureDoesNotMatch");
        String noTrailer = body.replaceAll("x-amz-checksum-crc32:[^\r]+\r\nx-amz-trailer-signature:[0-9a-f]+\r\n", "");
        assertThat(decodeFailure(principal, noTrailer.getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo("SignatureDoesNotMatch");
    }

    @Test
    void truncatedReorderedAndMalformedBodies() {
        Upload upload = upload(2 * CHUNK + 100, true, null);
        Principal principal = verifier.verify(upload.request());
        byte[] body = upload.body();

        for (int cut : new int[] {0, 10, CHUNK, body.length - 3, body.length - 1}) {
            assertThat(decodeFailure(principal, Arrays.copyOf(body, cut))).as("cut at %d", cut)
                    .isEqualTo("IncompleteBody");
        }
        assertThat(decodeFailure(principal, concat(body, "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo("InvalidRequest");
        String text = new String(body, StandardCharsets.ISO_8859_1);
        assertThat(decodeFailure(principal, text.replaceFirst("^20000;", "2000g;").getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo("InvalidRequest");
        assertThat(decodeFailure(principal, text.replaceFirst("^20000;chunk-signature=[0-9a-f]+", "20000")
                .getBytes(StandardCharsets.ISO_8859_1))).isEqualTo("SignatureDoesNotMatch");
        assertThat(decodeFailure(principal, text.replaceFirst("\r\n", "\n").getBytes(StandardCharsets.ISO_8859_1)))
                .isEqualTo("InvalidRequest");
        byte[] endless = new byte[10_000];
        Arrays.fill(endless, (byte) '1');
        assertThat(decodeFailure(principal, endless)).isEqualTo("InvalidRequest");
        byte[] huge = "ffffffffffffffff;chunk-signature=0\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThat(decodeFailure(principal, huge)).isEqualTo("InvalidRequest");
    }

    @Test
    void theDeclaredDecodedLengthMustMatch() {
        Upload upload = upload(1000, true, null);
        Principal principal = verifier.verify(upload.request());

        Principal shorter = new Principal(ACCESS_KEY, principal.payload(), null, principal.chunks(), 999, null);
        Principal longer = new Principal(ACCESS_KEY, principal.payload(), null, principal.chunks(), 1001, null);
        Principal undeclared = new Principal(ACCESS_KEY, principal.payload(), null, principal.chunks(), -1, null);

        assertThat(decodeFailure(shorter, upload.body())).isEqualTo("InvalidRequest");
        assertThat(decodeFailure(longer, upload.body())).isEqualTo("IncompleteBody");
        assertThat(decode(undeclared, upload.body(), 7)).isEqualTo(upload.payload());
    }

    @Test
    void aCrc64NvmeTrailerIsAcceptedUnchecked() {
        Principal principal = new Principal(ACCESS_KEY, PayloadMode.STREAMING_UNSIGNED_TRAILER, null, null, 3,
                "x-amz-checksum-crc64nvme");
        byte[] body = "3\r\nabc\r\n0\r\nx-amz-checksum-crc64nvme:AAAAAAAAAAA=\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

        assertThat(decode(principal, body, 1)).isEqualTo("abc".getBytes(StandardCharsets.US_ASCII));
        assertThat(decodeFailure(principal, "3\r\nabc\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("InvalidRequest");
    }

    /** The chunked upload example of S3's documentation: 64 KiB and 1 KiB of 'a', with its published signatures. */
    @Test
    void s3DocumentationChunkedUpload() {
        SigV4Verifier docs = new SigV4Verifier(
                ak -> Optional.of("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").filter(s -> ak.equals("AKIAIOSFODNN7EXAMPLE")),
                "us-east-1", false, Clock.fixed(Instant.parse("2013-05-24T00:00:00Z"), ZoneOffset.UTC));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("host", List.of("s3.amazonaws.com"));
        headers.put("x-amz-date", List.of("20130524T000000Z"));
        headers.put("x-amz-storage-class", List.of("REDUCED_REDUNDANCY"));
        headers.put("authorization", List.of("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3"
                + "/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
                + "x-amz-decoded-content-length;x-amz-storage-class,"
                + "Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9"));
        headers.put("x-amz-content-sha256", List.of("STREAMING-AWS4-HMAC-SHA256-PAYLOAD"));
        headers.put("content-encoding", List.of("aws-chunked"));
        headers.put("x-amz-decoded-content-length", List.of("66560"));
        headers.put("content-length", List.of("66824"));
        Principal principal = docs.verify(new IncomingRequest("PUT", "/examplebucket/chunkObject.txt", null, headers));

        byte[] a64k = "a".repeat(65536).getBytes(StandardCharsets.US_ASCII);
        byte[] a1k = "a".repeat(1024).getBytes(StandardCharsets.US_ASCII);
        byte[] body = concat(
                "10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n"
                        .getBytes(StandardCharsets.US_ASCII), a64k,
                "\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n"
                        .getBytes(StandardCharsets.US_ASCII), a1k,
                "\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));

        assertThat(body).hasSize(66824);
        assertThat(decode(principal, body, 4096)).isEqualTo(concat(a64k, a1k));
    }

    static byte[] decode(Principal principal, byte[] body, int split) {
        AwsChunkedDecoder decoder = new AwsChunkedDecoder(principal);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += split) {
            decoder.feed(Buffer.buffer(Arrays.copyOfRange(body, at, (int) Math.min(body.length, (long) at + split))),
                    b -> out.writeBytes(b.getBytes()));
        }
        decoder.end();
        return out.toByteArray();
    }

    private static byte[] decodeRandomly(Principal principal, byte[] body) {
        Random random = new Random(body.length);
        AwsChunkedDecoder decoder = new AwsChunkedDecoder(principal);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; ) {
            int next = Math.min(body.length, at + 1 + random.nextInt(3000));
            decoder.feed(Buffer.buffer(Arrays.copyOfRange(body, at, next)), b -> out.writeBytes(b.getBytes()));
            at = next;
        }
        decoder.end();
        return out.toByteArray();
    }

    /** The failure's code, whether feed or end reports it. */
    private static String decodeFailure(Principal principal, byte[] body) {
        Throwable failure = catchThrowable(() -> decode(principal, body, 1000));
        assertThat(failure).isInstanceOf(AuthFailure.class);
        return ((AuthFailure) failure).code();
    }

    private static byte[] flipByteOfSecondChunk(byte[] body) {
        byte[] tampered = body.clone();
        tampered[CHUNK + 200] ^= 1;
        return tampered;
    }

    private static ChecksumAlgorithm checksum(String name) {
        return switch (name) {
            case "CRC32" -> DefaultChecksumAlgorithm.CRC32;
            case "CRC32C" -> DefaultChecksumAlgorithm.CRC32C;
            case "SHA1" -> DefaultChecksumAlgorithm.SHA1;
            default -> DefaultChecksumAlgorithm.SHA256;
        };
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
