package io.granary.ufs;

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
}
