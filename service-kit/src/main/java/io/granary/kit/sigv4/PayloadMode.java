package io.granary.kit.sigv4;

/** How the body must be read after authentication. */
public enum PayloadMode {
    /** UNSIGNED-PAYLOAD: the body is taken as it comes. */
    UNSIGNED,
    /** x-amz-content-sha256 is the hex SHA-256 of the body: the caller must check it (S3 answers XAmzContentSHA256Mismatch). */
    SIGNED,
    /** STREAMING-AWS4-HMAC-SHA256-PAYLOAD: aws-chunked, every chunk signed; read it through {@link AwsChunkedDecoder}. */
    STREAMING_SIGNED,
    /** STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER: as STREAMING_SIGNED, then a signed trailer (a checksum). */
    STREAMING_SIGNED_TRAILER,
    /** STREAMING-UNSIGNED-PAYLOAD-TRAILER: aws-chunked without chunk signatures, then a trailer (a checksum). */
    STREAMING_UNSIGNED_TRAILER,
    /** No credentials at all, and the verifier allows that. */
    ANONYMOUS
}
