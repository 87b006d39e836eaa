package io.granary.ufs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.List;

/** Multipart rules shared by every under-store, so S3 and local directories refuse the same things alike. */
final class Uploads {

    private Uploads() {
    }

    static void checkUploadId(String uploadId) {
        if (uploadId == null || uploadId.isEmpty()) {
            throw new IllegalArgumentException("an upload id is required");
        }
    }

    static void checkPart(int partNumber, long size) {
        if (partNumber < 1 || partNumber > UnderStore.MAX_PART_NUMBER) {
            throw new IllegalArgumentException("part numbers run from 1 to " + UnderStore.MAX_PART_NUMBER
                    + ", not " + partNumber);
        }
        if (size < 0 || size > UnderStore.MAX_PART_SIZE) {
            throw new IllegalArgumentException("a part holds 0 to " + UnderStore.MAX_PART_SIZE + " bytes, not " + size);
        }
    }

    /** The list a completion names: not empty, and strictly ascending (S3's InvalidPartOrder otherwise). */
    static void checkOrder(List<UploadedPart> parts, String key) {
        if (parts == null || parts.isEmpty()) {
            throw new IllegalArgumentException("completing the upload of '" + key + "' needs at least one part");
        }
        int previous = 0;
        for (UploadedPart part : parts) {
            if (part.partNumber() <= previous) {
                throw new InvalidPartException(InvalidPartException.Reason.INVALID_PART_ORDER, "parts of '" + key
                        + "' must be named in ascending order without repeats: " + part.partNumber()
                        + " follows " + previous);
            }
            previous = part.partNumber();
        }
    }

    /** S3's EntityTooSmall: every part but the last holds at least {@link UnderStore#MIN_PART_SIZE} bytes. */
    static void checkSize(UploadedPart part, long size, boolean last, String key) {
        if (!last && size < UnderStore.MIN_PART_SIZE) {
            throw new InvalidPartException(InvalidPartException.Reason.ENTITY_TOO_SMALL, "part " + part.partNumber()
                    + " of '" + key + "' holds " + size + " bytes; every part but the last needs at least "
                    + UnderStore.MIN_PART_SIZE);
        }
    }

    static InvalidPartException missing(UploadedPart part, String key) {
        return new InvalidPartException(InvalidPartException.Reason.INVALID_PART, "part " + part.partNumber()
                + " of '" + key + "' was never uploaded");
    }

    static InvalidPartException etagMismatch(UploadedPart part, String key) {
        return new InvalidPartException(InvalidPartException.Reason.INVALID_PART, "part " + part.partNumber()
                + " of '" + key + "' does not have etag " + part.etag() + " (re-sent since?)");
    }

    /** Opens part {@code index} of a completion's list, from wherever the store staged it. */
    interface PartSource {
        InputStream open(int index) throws IOException;
    }

    /**
     * Copies the named parts into {@code out} in order, each one's MD5 checked against the etag it was named with as
     * its bytes go by: one read of each part, not two.
     */
    static void join(List<UploadedPart> parts, PartSource source, OutputStream out, String key) throws IOException {
        byte[] buffer = new byte[1 << 20];
        for (int i = 0; i < parts.size(); i++) {
            MessageDigest md5 = Md5.digest();
            try (InputStream in = source.open(i)) {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    md5.update(buffer, 0, n);
                    out.write(buffer, 0, n);
                }
            }
            if (!Md5.hex(md5).equals(parts.get(i).etag())) {
                throw etagMismatch(parts.get(i), key);
            }
        }
    }
}
