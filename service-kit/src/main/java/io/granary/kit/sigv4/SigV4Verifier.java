package io.granary.kit.sigv4;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Verifies S3 requests signed with AWS Signature Version 4, in the Authorization header or as a presigned URL, and
 * answers with the S3 error a real S3 would give when they are not right. Thread-safe.
 *
 * <p>Choices where S3 leaves room: the Date header stands in for X-Amz-Date in the header form; SigV2
 * ({@code AWS AK:sig}, or AWSAccessKeyId/Signature in the query) and SigV4a are refused with InvalidRequest
 * "Please use AWS4-HMAC-SHA256", as S3 regions that only know SigV4 do; a header-form request without
 * x-amz-content-sha256 is refused with InvalidRequest "Missing required header for this request:
 * x-amz-content-sha256", as S3 does; host and every x-amz-* header that arrived must be signed (AccessDenied,
 * as S3's HeadersNotSigned); a trailing-checksum body must name its trailer in x-amz-trailer.
 */
public final class SigV4Verifier {

    private static final Duration MAX_SKEW = Duration.ofMinutes(15);
    private static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

    private final SecretLookup secrets;
    private final String region;
    private final boolean allowAnonymous;
    private final Clock clock;
    private final SigningKeys signingKeys = new SigningKeys();

    public SigV4Verifier(SecretLookup secrets, String region, boolean allowAnonymous, Clock clock) {
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.region = Objects.requireNonNull(region, "region");
        this.allowAnonymous = allowAnonymous;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @throws AuthFailure with the right S3 error code */
    public Principal verify(IncomingRequest request) {
        List<UriEncoding.Param> query = UriEncoding.queryParameters(request.rawQuery());
        Claim claim = claim(request, query);
        if (claim == null) {
            if (allowAnonymous) {
                return Principal.anonymous();
            }
            throw AuthFailure.accessDenied("Access Denied");
        }
        checkScope(claim);
        String secret = secrets.secretKey(claim.accessKeyId()).orElseThrow(AuthFailure::invalidAccessKeyId);
        checkTime(claim);

        String payloadHash = payloadHash(claim, request, query);
        PayloadMode mode = mode(payloadHash);
        SigningInput input = new SigningInput(request.method(), UriEncoding.canonicalPath(request.rawPath()),
                claim.presigned() ? withoutSignature(query) : query, signedHeaders(claim, request), payloadHash,
                claim.timestamp(), claim.scope());
        String expected = CanonicalRequest.signature(input, signingKey(secret, claim));
        if (!SigV4Crypto.sameSignature(expected, claim.signature())) {
            throw AuthFailure.signatureDoesNotMatch();
        }
        return principal(claim, request, mode, payloadHash, secret);
    }

    /** The claimed signature, or null when the request carries no credentials at all. */
    private static Claim claim(IncomingRequest request, List<UriEncoding.Param> query) {
        String authorization = request.header("authorization");
        boolean presigned = query.stream().anyMatch(p -> p.name().equals("X-Amz-Algorithm")
                || p.name().equals("X-Amz-Credential") || p.name().equals("X-Amz-Signature"));
        boolean sigV2Query = query.stream().anyMatch(p -> p.name().equals("AWSAccessKeyId"));
        if (authorization != null && (presigned || sigV2Query)) {
            throw AuthFailure.invalidArgument("Only one auth mechanism allowed; only the X-Amz-Algorithm query"
                    + " parameter, Signature query string parameter or the Authorization header should be specified");
        }
        if (authorization != null) {
            if (authorization.startsWith(Claim.ALGORITHM + " ")) {
                return Claim.fromAuthorization(authorization, request);
            }
            if (authorization.startsWith("AWS ") || authorization.startsWith("AWS4-ECDSA-P256-SHA256 ")) {
                throw useSigV4();
            }
            throw AuthFailure.invalidArgument("Unsupported Authorization Type");
        }
        if (presigned) {
            return Claim.fromQuery(query);
        }
        if (sigV2Query) {
            throw useSigV4();
        }
        return null;
    }

    private static AuthFailure useSigV4() {
        return AuthFailure.invalidRequest(
                "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.");
    }

    private void checkScope(Claim claim) {
        if (!region.equals(claim.region())) {
            throw claim.malformed("the region '" + claim.region() + "' is wrong; expecting '" + region + "'");
        }
        if (!"s3".equals(claim.service())) {
            throw claim.malformed("incorrect service '" + claim.service() + "'. This endpoint belongs to 's3'.");
        }
        if (!"aws4_request".equals(claim.terminal())) {
            throw claim.malformed(
                    "incorrect terminal '" + claim.terminal() + "'. This endpoint uses 'aws4_request'.");
        }
        if (claim.scopeDate().length() != 8 || !claim.timestamp().startsWith(claim.scopeDate())) {
            throw claim.malformed("Invalid credential date. Date is not the same as X-Amz-Date.");
        }
    }

    private void checkTime(Claim claim) {
        Instant now = clock.instant();
        if (!claim.presigned()) {
            if (Duration.between(claim.time(), now).abs().compareTo(MAX_SKEW) > 0) {
                throw AuthFailure.requestTimeTooSkewed();
            }
            return;
        }
        if (claim.time().isAfter(now.plus(MAX_SKEW))) {
            throw AuthFailure.accessDenied("Request is not valid yet");
        }
        // Valid for X-Amz-Expires seconds from X-Amz-Date; so X-Amz-Expires=0 is never valid.
        if (!now.isBefore(claim.time().plusSeconds(claim.expiresSeconds()))) {
            throw AuthFailure.accessDenied("Request has expired");
        }
    }

    /** The signed headers with their values; host and every x-amz-* header that arrived must be among them. */
    private static SortedMap<String, List<String>> signedHeaders(Claim claim, IncomingRequest request) {
        TreeSet<String> notSigned = new TreeSet<>();
        if (!claim.signedHeaders().contains("host")) {
            notSigned.add("host");
        }
        for (String name : request.headers().keySet()) {
            if (name.startsWith("x-amz-") && !claim.signedHeaders().contains(name)) {
                notSigned.add(name);
            }
        }
        if (!notSigned.isEmpty()) {
            throw AuthFailure.accessDenied("There were headers present in the request which were not signed: "
                    + String.join(", ", notSigned));
        }
        SortedMap<String, List<String>> signed = new TreeMap<>();
        for (String name : claim.signedHeaders()) {
            List<String> values = request.headers().get(name);
            if (values == null || values.isEmpty()) {
                throw AuthFailure.signatureDoesNotMatch(); // signed, but not sent
            }
            signed.put(name, values);
        }
        return signed;
    }

    private static String payloadHash(Claim claim, IncomingRequest request, List<UriEncoding.Param> query) {
        if (claim.presigned()) {
            return query.stream().filter(p -> p.name().equals("X-Amz-Content-Sha256")).findFirst()
                    .map(UriEncoding.Param::value).orElse(UNSIGNED_PAYLOAD);
        }
        String hash = request.header("x-amz-content-sha256");
        if (hash == null) {
            throw AuthFailure.invalidRequest("Missing required header for this request: x-amz-content-sha256");
        }
        return hash;
    }

    private static PayloadMode mode(String payloadHash) {
        return switch (payloadHash) {
            case UNSIGNED_PAYLOAD -> PayloadMode.UNSIGNED;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" -> PayloadMode.STREAMING_SIGNED;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" -> PayloadMode.STREAMING_SIGNED_TRAILER;
            case "STREAMING-UNSIGNED-PAYLOAD-TRAILER" -> PayloadMode.STREAMING_UNSIGNED_TRAILER;
            default -> {
                if (!payloadHash.matches("[0-9a-fA-F]{64}")) {
                    throw AuthFailure.invalidArgument("x-amz-content-sha256 must be UNSIGNED-PAYLOAD,"
                            + " STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER,"
                            + " STREAMING-UNSIGNED-PAYLOAD-TRAILER or a valid sha256 value.");
                }
                yield PayloadMode.SIGNED;
            }
        };
    }

    private static List<UriEncoding.Param> withoutSignature(List<UriEncoding.Param> query) {
        return query.stream().filter(p -> !p.name().equals("X-Amz-Signature")).collect(Collectors.toList());
    }

    private byte[] signingKey(String secret, Claim claim) {
        return signingKeys.of(secret, claim.scopeDate(), claim.region());
    }

    private Principal principal(Claim claim, IncomingRequest request, PayloadMode mode, String payloadHash,
                                       String secret) {
        return switch (mode) {
            case SIGNED -> new Principal(claim.accessKeyId(), mode, payloadHash.toLowerCase(Locale.ROOT), null, -1,
                    null);
            case UNSIGNED -> new Principal(claim.accessKeyId(), mode, null, null, -1, null);
            case STREAMING_SIGNED -> new Principal(claim.accessKeyId(), mode, null, chunkSigner(claim, secret),
                    decodedContentLength(request), null);
            case STREAMING_SIGNED_TRAILER -> new Principal(claim.accessKeyId(), mode, null, chunkSigner(claim, secret),
                    decodedContentLength(request), trailer(request, payloadHash));
            case STREAMING_UNSIGNED_TRAILER -> new Principal(claim.accessKeyId(), mode, null, null,
                    decodedContentLength(request), trailer(request, payloadHash));
            case ANONYMOUS -> throw new IllegalStateException("a signed request is never anonymous");
        };
    }

    private ChunkSigner chunkSigner(Claim claim, String secret) {
        return new ChunkSigner(signingKey(secret, claim), claim.timestamp(), claim.scope(), claim.signature());
    }

    private static long decodedContentLength(IncomingRequest request) {
        String value = request.header("x-amz-decoded-content-length");
        if (value == null) {
            return -1;
        }
        try {
            long length = Long.parseLong(value.trim());
            if (length >= 0) {
                return length;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw AuthFailure.invalidArgument("x-amz-decoded-content-length must be a non-negative number");
    }

    private static String trailer(IncomingRequest request, String payloadHash) {
        String trailer = request.header("x-amz-trailer");
        if (trailer == null || trailer.isBlank()) {
            throw AuthFailure.invalidRequest("x-amz-trailer is required with x-amz-content-sha256: " + payloadHash);
        }
        return trailer.trim().toLowerCase(Locale.ROOT);
    }
}
