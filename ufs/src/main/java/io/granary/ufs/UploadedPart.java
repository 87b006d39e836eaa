package io.granary.ufs;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One part named in {@link UnderStore#completeUpload}.
 *
 * @param partNumber 1..{@link UnderStore#MAX_PART_NUMBER}
 * @param etag       what {@link UnderStore#uploadPart} returned; surrounding quotes, as S3 clients send them in
 *                   CompleteMultipartUpload, are dropped
 */
public record UploadedPart(int partNumber, String etag) {

    private static final Pattern MD5 = Pattern.compile("[0-9a-fA-F]{32}");

    public UploadedPart {
        Objects.requireNonNull(etag, "etag");
        if (etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")) {
            etag = etag.substring(1, etag.length() - 1);
        }
    }

    /**
     * S3's ETag of the object these parts join into: the MD5 of the parts' binary MD5s, then '-' and how many
     * parts. Null when a part's etag is not an MD5 (a store encrypting with KMS), as then neither is S3's.
     */
    public static String objectEtag(List<UploadedPart> parts) {
        MessageDigest md5 = Md5.digest();
        for (UploadedPart part : parts) {
            if (!MD5.matcher(part.etag()).matches()) {
                return null;
            }
            md5.update(HexFormat.of().parseHex(part.etag()));
        }
        return Md5.hex(md5) + "-" + parts.size();
    }
}
