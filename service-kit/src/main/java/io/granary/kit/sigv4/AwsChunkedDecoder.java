package io.granary.kit.sigv4;

import io.vertx.core.buffer.Buffer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Decodes an aws-chunked body incrementally, as Vert.x delivers it (any split of the bytes), verifying each
 * chunk's signature (and the trailer's, for the signed trailer variant) via the {@link ChunkSigner}, and checking a
 * trailing x-amz-checksum-crc32 / -crc32c / -sha256 / -sha1 (crc64nvme goes unchecked, see
 * {@link TrailerChecksum#forTrailer}).
 *
 * <p>Decoded bytes are passed on as they arrive, before their chunk's signature can be checked, so that a chunk of
 * any size streams through in constant memory: nothing passed on is authentic until {@link #end()} returns, and
 * everything is to be discarded once an {@link AuthFailure} is thrown. One decoder per request; not thread-safe.
 *
 * <pre>
 * signed:   hex-size;chunk-signature=sig CRLF data CRLF ... 0;chunk-signature=sig CRLF [trailers] CRLF
 * unsigned: hex-size CRLF data CRLF ... 0 CRLF trailers CRLF
 * trailers: name:value CRLF ... [x-amz-trailer-signature:sig CRLF]
 * </pre>
 */
public final class AwsChunkedDecoder {

    /** The longest chunk header or trailer line taken; real ones are under 200 bytes. */
    private static final int MAX_LINE = 4096;
    private static final int MAX_HEX_DIGITS = 15;
    private static final String TRAILER_SIGNATURE = "x-amz-trailer-signature";

    private enum State { CHUNK_HEADER, CHUNK_DATA, CHUNK_END, TRAILER, DONE }

    private final PayloadMode mode;
    private final ChunkSigner signer;
    private final MessageDigest chunkDigest;
    private final long declaredLength;
    private final String trailer;
    private final TrailerChecksum checksum;
    private final StringBuilder line = new StringBuilder();
    private final SortedMap<String, List<String>> trailers = new TreeMap<>();

    private State state = State.CHUNK_HEADER;
    private String previousSignature;
    private String chunkSignature;
    private long chunkRemaining;
    private int crlfSeen;
    private long decoded;
    private AuthFailure failure;

    public AwsChunkedDecoder(Principal principal) {
        mode = principal.payload();
        boolean signed = mode == PayloadMode.STREAMING_SIGNED || mode == PayloadMode.STREAMING_SIGNED_TRAILER;
        boolean chunked = signed || mode == PayloadMode.STREAMING_UNSIGNED_TRAILER;
        boolean complete = (!signed || principal.chunks() != null)
                && (mode == PayloadMode.STREAMING_SIGNED || principal.trailer() != null);
        if (!chunked || !complete) {
            throw new IllegalArgumentException("not the principal of an aws-chunked body: " + principal);
        }
        signer = principal.chunks();
        chunkDigest = signed ? SigV4Crypto.sha256() : null;
        previousSignature = signed ? signer.seed() : null;
        declaredLength = principal.decodedContentLength();
        trailer = mode == PayloadMode.STREAMING_SIGNED ? null : principal.trailer();
        checksum = trailer == null ? null : TrailerChecksum.forTrailer(trailer);
    }

    /** Decodes the next piece of the body, passing decoded payload bytes on. */
    public void feed(Buffer input, Consumer<Buffer> payload) {
        if (failure != null) {
            throw failure;
        }
        try {
            int at = 0;
            while (at < input.length()) {
                at = switch (state) {
                    case CHUNK_HEADER, TRAILER -> readLine(input, at);
                    case CHUNK_DATA -> readData(input, at, payload);
                    case CHUNK_END -> readCrlf(input, at);
                    case DONE -> throw AuthFailure.invalidRequest("Data after the end of the aws-chunked body");
                };
            }
        } catch (AuthFailure f) {
            failure = f;
            throw f;
        }
    }

    /** Call at end of body: fails if the final 0-size chunk / trailer is missing or a declared x-amz-decoded-content-length does not match. */
    public void end() {
        if (failure != null) {
            throw failure;
        }
        if (state != State.DONE) {
            failure = AuthFailure.incompleteBody("The aws-chunked body ended before its final chunk"
                    + (mode == PayloadMode.STREAMING_SIGNED ? "" : " and trailer"));
            throw failure;
        }
    }

    private int readLine(Buffer input, int at) {
        int i = at;
        for (; i < input.length(); i++) {
            char c = (char) (input.getByte(i) & 0xff);
            if (c == '\n') {
                break;
            }
            if (line.length() == MAX_LINE) {
                throw malformed("a chunk header or trailer line is too long");
            }
            line.append(c);
        }
        if (i == input.length()) {
            return i; // the line goes on in the next piece
        }
        if (line.length() == 0 || line.charAt(line.length() - 1) != '\r') {
            throw malformed("a line does not end with CRLF");
        }
        String text = line.substring(0, line.length() - 1);
        line.setLength(0);
        if (state == State.CHUNK_HEADER) {
            chunkHeader(text);
        } else {
            trailerLine(text);
        }
        return i + 1;
    }

    private void chunkHeader(String header) {
        int semicolon = header.indexOf(';');
        String size = semicolon < 0 ? header : header.substring(0, semicolon);
        if (size.isEmpty() || size.length() > MAX_HEX_DIGITS || !size.chars().allMatch(AwsChunkedDecoder::isHex)) {
            throw malformed("a chunk size is not a hex number");
        }
        chunkSignature = null;
        if (semicolon >= 0) {
            for (String extension : header.substring(semicolon + 1).split(";")) {
                if (extension.startsWith("chunk-signature=")) {
                    chunkSignature = extension.substring("chunk-signature=".length());
                }
            }
        }
        chunkRemaining = Long.parseLong(size, 16);
        if (chunkRemaining == 0) {
            verifyChunk();
            state = State.TRAILER;
        } else {
            state = State.CHUNK_DATA;
        }
    }

    private int readData(Buffer input, int at, Consumer<Buffer> payload) {
        int take = (int) Math.min(chunkRemaining, input.length() - at);
        byte[] bytes = input.getBytes(at, at + take);
        if (chunkDigest != null) {
            chunkDigest.update(bytes);
        }
        if (checksum != null) {
            checksum.update(bytes);
        }
        decoded += take;
        if (declaredLength >= 0 && decoded > declaredLength) {
            throw AuthFailure.invalidRequest(
                    "The aws-chunked body holds more than x-amz-decoded-content-length bytes: " + declaredLength);
        }
        payload.accept(Buffer.buffer(bytes));
        chunkRemaining -= take;
        if (chunkRemaining == 0) {
            verifyChunk();
            state = State.CHUNK_END;
            crlfSeen = 0;
        }
        return at + take;
    }

    private int readCrlf(Buffer input, int at) {
        if (input.getByte(at) != (crlfSeen == 0 ? '\r' : '\n')) {
            throw malformed("chunk data is not followed by CRLF");
        }
        if (++crlfSeen == 2) {
            state = State.CHUNK_HEADER;
        }
        return at + 1;
    }

    private void verifyChunk() {
        if (signer == null) {
            return;
        }
        String expected = signer.chunkSignature(previousSignature, chunkDigest.digest());
        if (chunkSignature == null || !SigV4Crypto.sameSignature(expected, chunkSignature)) {
            throw AuthFailure.signatureDoesNotMatch();
        }
        previousSignature = expected;
    }

    private void trailerLine(String text) {
        if (text.isEmpty()) {
            finish();
            state = State.DONE;
            return;
        }
        int colon = text.indexOf(':');
        if (mode == PayloadMode.STREAMING_SIGNED || colon <= 0) {
            throw malformed("unexpected trailer line");
        }
        trailers.put(text.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                List.of(text.substring(colon + 1)));
    }

    private void finish() {
        if (declaredLength >= 0 && decoded != declaredLength) {
            throw AuthFailure.incompleteBody("You did not provide the number of bytes specified by the"
                    + " x-amz-decoded-content-length HTTP header: " + decoded + " of " + declaredLength);
        }
        if (mode == PayloadMode.STREAMING_SIGNED) {
            return;
        }
        List<String> claimed = trailers.remove(TRAILER_SIGNATURE);
        if (mode == PayloadMode.STREAMING_SIGNED_TRAILER) {
            byte[] trailerSha256 = SigV4Crypto.sha256()
                    .digest(CanonicalRequest.headers(trailers).getBytes(StandardCharsets.UTF_8));
            String expected = signer.trailerSignature(previousSignature, trailerSha256);
            if (claimed == null || !SigV4Crypto.sameSignature(expected, claimed.get(0).trim())) {
                throw AuthFailure.signatureDoesNotMatch();
            }
        }
        List<String> value = trailers.get(trailer);
        if (value == null) {
            throw AuthFailure.invalidRequest("The trailer named in x-amz-trailer was not sent: " + trailer);
        }
        if (checksum != null && !checksum.matches(value.get(0).trim())) {
            throw AuthFailure.badDigest(
                    "The " + checksum.algorithm() + " you specified did not match the calculated checksum.");
        }
    }

    private static boolean isHex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    private static AuthFailure malformed(String what) {
        return AuthFailure.invalidRequest("Malformed aws-chunked body: " + what);
    }
}
