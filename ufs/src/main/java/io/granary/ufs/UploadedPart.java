package io.granary.ufs;

import java.util.Objects;

/**
 * One part named in {@link UnderStore#completeUpload}.
 *
 * @param partNumber 1..{@link UnderStore#MAX_PART_NUMBER}
 * @param etag       what {@link UnderStore#uploadPart} returned; surrounding quotes, as S3 clients send them in
 *                   CompleteMultipartUpload, are dropped
 */
public record UploadedPart(int partNumber, String etag) {

    public UploadedPart {
        Objects.requireNonNull(etag, "etag");
        if (etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")) {
            etag = etag.substring(1, etag.length() - 1);
        }
    }
}
