package io.granary.gateway.s3;

import io.granary.contracts.dataset.FileInfo;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * S3's conditional GET and HEAD (RFC 9110 order): If-Match, then If-Unmodified-Since (412); If-None-Match, then
 * If-Modified-Since (304). A copy's conditions on its source are the same headers prefixed
 * {@code x-amz-copy-source-}, and any of them not met is a 412. Dates that do not parse are ignored, as S3 does.
 */
final class Preconditions {

    private Preconditions() {
    }

    /** @return 0 to go on, or the status to answer with (304 or 412) */
    static int check(S3Request request, FileInfo file) {
        return check(request, "", file);
    }

    /** CopyObject's and UploadPartCopy's conditions on the source object. */
    static boolean copySourceMet(S3Request request, FileInfo source) {
        return check(request, "x-amz-copy-source-", source) == 0;
    }

    /** Whether a write carries If-Match or If-None-Match, which {@link #checkWrite} then needs the object for. */
    static boolean conditionalWrite(S3Request request) {
        return request.header("If-Match") != null || request.header("If-None-Match") != null;
    }

    /**
     * A conditional PutObject or CompleteMultipartUpload, as S3 has them: If-Match needs the object there
     * (NoSuchKey) with a matching ETag, If-None-Match ("*" or an ETag) needs no match (PreconditionFailed).
     *
     * @param current the object as the under-store has it now, empty when there is none
     */
    static void checkWrite(S3Request request, Optional<FileInfo> current) {
        String ifMatch = request.header("If-Match");
        if (ifMatch != null) {
            FileInfo file = current.orElseThrow(() -> S3Exception.noSuchKey(request.key()));
            if (!matches(ifMatch, file.etag())) {
                throw preconditionFailed();
            }
        }
        String ifNoneMatch = request.header("If-None-Match");
        if (ifNoneMatch != null && current.isPresent() && matches(ifNoneMatch, current.get().etag())) {
            throw preconditionFailed();
        }
    }

    static S3Exception preconditionFailed() {
        return new S3Exception(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold");
    }

    private static int check(S3Request request, String prefix, FileInfo file) {
        String ifMatch = request.header(prefix + "If-Match");
        String ifNoneMatch = request.header(prefix + "If-None-Match");
        Instant modified = file.mtime().truncatedTo(ChronoUnit.SECONDS);
        if (ifMatch != null) {
            if (!matches(ifMatch, file.etag())) {
                return 412;
            }
        } else {
            Instant since = date(request.header(prefix + "If-Unmodified-Since"));
            if (since != null && modified.isAfter(since)) {
                return 412;
            }
        }
        if (ifNoneMatch != null) {
            if (matches(ifNoneMatch, file.etag())) {
                return 304;
            }
        } else {
            Instant since = date(request.header(prefix + "If-Modified-Since"));
            if (since != null && !modified.isAfter(since)) {
                return 304;
            }
        }
        return 0;
    }

    private static boolean matches(String header, String etag) {
        for (String candidate : header.split(",")) {
            String tag = candidate.strip();
            if (tag.startsWith("W/")) {
                tag = tag.substring(2);
            }
            if (tag.equals("*") || tag.equals('"' + etag + '"') || tag.equals(etag)) {
                return true;
            }
        }
        return false;
    }

    private static Instant date(String header) {
        if (header == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(header.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
