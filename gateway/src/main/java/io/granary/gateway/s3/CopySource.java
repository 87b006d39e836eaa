package io.granary.gateway.s3;

import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.ValidationException;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The object a CopyObject or UploadPartCopy copies from: {@code x-amz-copy-source}, {@code bucket/key} or
 * {@code /bucket/key}, URL-encoded, with an optional {@code ?versionId=} that can only name the one version an
 * object has here ("null").
 */
record CopySource(String bucket, String key) {

    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{1,19})-(\\d{1,19})");

    /** A byte range of the source, both ends included. */
    record Range(long first, long last) {
        long length() {
            return last - first + 1;
        }
    }

    static CopySource parse(String header) {
        String source = header.strip();
        int query = source.indexOf('?');
        if (query >= 0) {
            String version = source.substring(query + 1);
            source = source.substring(0, query);
            if (!version.equals("versionId=null")) {
                throw new S3Exception(400, "InvalidArgument", "Invalid version id specified: objects here have the"
                        + " one version 'null'");
            }
        }
        String decoded;
        try {
            decoded = URLDecoder.decode(source.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw S3Exception.invalidArgument("x-amz-copy-source is not URL-encoded: " + e.getMessage());
        }
        if (decoded.startsWith("/")) {
            decoded = decoded.substring(1);
        }
        int slash = decoded.indexOf('/');
        if (slash <= 0 || slash == decoded.length() - 1) {
            throw S3Exception.invalidArgument("Copy Source must mention the source bucket and key: sourcebucket/sourcekey");
        }
        try {
            return new CopySource(decoded.substring(0, slash),
                    DatasetPaths.normalize("key", decoded.substring(slash + 1)));
        } catch (ValidationException e) {
            throw S3Exception.invalidArgument("x-amz-copy-source key: " + e.detail());
        }
    }

    /**
     * The part of a source of {@code size} bytes that {@code x-amz-copy-source-range} names; all of it without one.
     */
    static Range range(String header, long size) {
        if (header == null) {
            return new Range(0, size - 1);
        }
        Matcher matcher = RANGE.matcher(header.strip());
        if (!matcher.matches()) {
            throw S3Exception.invalidArgument("The x-amz-copy-source-range value must be of the form bytes=first-last"
                    + " where first and last are the zero-based offsets of the first and last bytes to copy");
        }
        long first = Long.parseLong(matcher.group(1));
        long last = Long.parseLong(matcher.group(2));
        if (first > last || last >= size) {
            throw new S3Exception(416, "InvalidRange", "The requested range is not satisfiable: bytes=" + first + "-"
                    + last + " of a source of " + size + " bytes");
        }
        return new Range(first, last);
    }
}
