package io.granary.kit.sigv4;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a request claims about its SigV4 signature: from the Authorization header, or from a presigned URL's query.
 * Parsing only checks the form; {@link SigV4Verifier} checks the content.
 *
 * @param timestamp      the request time as it goes into the string to sign (yyyyMMdd'T'HHmmss'Z')
 * @param signedHeaders  lower-case names, in the order given
 * @param expiresSeconds X-Amz-Expires of a presigned URL; 0 for the header form
 */
record Claim(boolean presigned, String accessKeyId, String scopeDate, String region, String service, String terminal,
             Instant time, String timestamp, List<String> signedHeaders, String signature, long expiresSeconds) {

    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final long MAX_EXPIRES_SECONDS = 604800;

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'", Locale.ROOT)
            .withResolverStyle(ResolverStyle.STRICT);

    /** The credential scope: date/region/service/terminal. */
    String scope() {
        return String.join("/", scopeDate, region, service, terminal);
    }

    /** A complaint about the credential, worded as S3 words it for the header or the query form. */
    AuthFailure malformed(String reason) {
        return malformed(presigned, reason);
    }

    private static AuthFailure malformed(boolean presigned, String reason) {
        return presigned
                ? AuthFailure.queryParametersError("Error parsing the X-Amz-Credential parameter; " + reason)
                : AuthFailure.headerMalformed(reason);
    }

    /** Parses "AWS4-HMAC-SHA256 Credential=AK/date/region/s3/aws4_request, SignedHeaders=a;b, Signature=hex". */
    static Claim fromAuthorization(String authorization, IncomingRequest request) {
        Map<String, String> fields = new HashMap<>();
        for (String field : authorization.substring(ALGORITHM.length()).split(",")) {
            int eq = field.indexOf('=');
            if (eq > 0) {
                fields.put(field.substring(0, eq).trim(), field.substring(eq + 1).trim());
            }
        }
        String credential = fields.get("Credential");
        String signedHeaders = fields.get("SignedHeaders");
        String signature = fields.get("Signature");
        if (credential == null || signedHeaders == null || signedHeaders.isEmpty() || signature == null) {
            throw AuthFailure.headerMalformed("it needs Credential, SignedHeaders and Signature.");
        }
        String amzDate = request.header("x-amz-date");
        Instant time = amzDate != null ? parseAmzDate(amzDate) : parseHttpDate(request.header("date"));
        if (time == null) {
            throw AuthFailure.accessDenied("AWS authentication requires a valid Date or x-amz-date header");
        }
        return of(false, credential, time, amzDate != null ? amzDate : AMZ_DATE.format(time.atOffset(ZoneOffset.UTC)),
                signedHeaders, signature, 0);
    }

    /** Parses the X-Amz-* parameters of a presigned URL. */
    static Claim fromQuery(List<UriEncoding.Param> query) {
        Map<String, String> params = new HashMap<>();
        query.forEach(p -> params.putIfAbsent(p.name(), p.value()));
        String algorithm = params.get("X-Amz-Algorithm");
        String credential = params.get("X-Amz-Credential");
        String date = params.get("X-Amz-Date");
        String expires = params.get("X-Amz-Expires");
        String signedHeaders = params.get("X-Amz-SignedHeaders");
        String signature = params.get("X-Amz-Signature");
        if (Stream.of(algorithm, credential, date, expires, signedHeaders, signature).anyMatch(v -> v == null)) {
            throw AuthFailure.queryParametersError("Query-string authentication version 4 requires the X-Amz-Algorithm,"
                    + " X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires"
                    + " parameters.");
        }
        if (!ALGORITHM.equals(algorithm)) {
            throw AuthFailure.queryParametersError("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"");
        }
        Instant time = parseAmzDate(date);
        if (time == null) {
            throw AuthFailure.queryParametersError(
                    "X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
        }
        long seconds;
        try {
            seconds = Long.parseLong(expires);
        } catch (NumberFormatException e) {
            throw AuthFailure.queryParametersError("X-Amz-Expires should be a number");
        }
        if (seconds < 0) {
            throw AuthFailure.queryParametersError("X-Amz-Expires must be non-negative");
        }
        if (seconds > MAX_EXPIRES_SECONDS) {
            throw AuthFailure.queryParametersError(
                    "X-Amz-Expires must be less than a week (in seconds) that is 604800");
        }
        return of(true, credential, time, date, signedHeaders, signature, seconds);
    }

    /** timestamp: yyyyMMdd'T'HHmmss'Z'; an X-Amz-Date that parsed strictly is in that form already. */
    private static Claim of(boolean presigned, String credential, Instant time, String timestamp, String signedHeaders,
                            String signature, long expiresSeconds) {
        // The access key id never holds a '/', so the credential is exactly five parts.
        String[] parts = credential.split("/", -1);
        if (parts.length != 5 || parts[0].isEmpty()) {
            throw malformed(presigned, "the Credential is mal-formed; expecting"
                    + " \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
        }
        List<String> headers = new ArrayList<>();
        for (String header : signedHeaders.split(";")) {
            headers.add(header.trim().toLowerCase(Locale.ROOT));
        }
        return new Claim(presigned, parts[0], parts[1], parts[2], parts[3], parts[4], time, timestamp, headers,
                signature, expiresSeconds);
    }

    private static Instant parseAmzDate(String value) {
        try {
            return LocalDateTime.parse(value, AMZ_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return null;
        }
    }

    private static Instant parseHttpDate(String value) {
        try {
            return value == null ? null : ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeException e) {
            return null;
        }
    }
}
