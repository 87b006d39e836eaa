/**
 * AWS Signature Version 4, verification side: the gateway's S3 API and every service's signed management calls.
 *
 * <p>{@link io.granary.kit.sigv4.SigV4Verifier#verify} takes the request as it arrived
 * ({@link io.granary.kit.sigv4.IncomingRequest}: Vert.x's {@code path()} and {@code query()} are still
 * percent-encoded, as wanted; header names lower-cased) and answers with a
 * {@link io.granary.kit.sigv4.Principal}, or throws an {@link io.granary.kit.sigv4.AuthFailure} carrying the
 * S3 error code and HTTP status to answer with. The principal's {@link io.granary.kit.sigv4.PayloadMode} says how
 * to read the body: as it comes (UNSIGNED, ANONYMOUS); checking its SHA-256 against the principal's payloadSha256
 * (SIGNED); or, in the three STREAMING modes, through an {@link io.granary.kit.sigv4.AwsChunkedDecoder}, fed each
 * piece of the body and ended at its end.
 */
package io.granary.kit.sigv4;
