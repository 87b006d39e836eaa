package io.granary.kit.sigv4;

/**
 * A verified caller.
 *
 * @param accessKeyId          null when {@link PayloadMode#ANONYMOUS}
 * @param payloadSha256        the lower-case hex SHA-256 the body must have; only for {@link PayloadMode#SIGNED}, else null
 * @param chunks               verifies chunk signatures; its seed is the request's signature (the first "previous
 *                             signature" of chunk chaining); null unless streaming signed
 * @param decodedContentLength x-amz-decoded-content-length of a streaming body, or -1 when not declared
 * @param trailer              the trailing header a streaming body with a trailer declared in x-amz-trailer
 *                             (lower-case, e.g. x-amz-checksum-crc32), else null
 */
public record Principal(String accessKeyId, PayloadMode payload, String payloadSha256, ChunkSigner chunks,
                        long decodedContentLength, String trailer) {

    static Principal anonymous() {
        return new Principal(null, PayloadMode.ANONYMOUS, null, null, -1, null);
    }
}
