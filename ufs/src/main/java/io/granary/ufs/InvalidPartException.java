package io.granary.ufs;

/**
 * A multipart upload cannot be completed with the parts named; the upload itself is left as it was.
 * {@link #reason()} tells the three S3 errors apart.
 */
public class InvalidPartException extends UnderStoreException {

    public enum Reason {
        /** A named part was never uploaded, or its etag is not the one given. */
        INVALID_PART("InvalidPart"),
        /** The part numbers are not in strictly ascending order. */
        INVALID_PART_ORDER("InvalidPartOrder"),
        /** A part other than the last holds fewer than {@link UnderStore#MIN_PART_SIZE} bytes. */
        ENTITY_TOO_SMALL("EntityTooSmall");

        private final String s3Code;

        Reason(String s3Code) {
            this.s3Code = s3Code;
        }

        /** The S3 error code a gateway answers with. */
        public String s3Code() {
            return s3Code;
        }
    }

    private final Reason reason;

    public InvalidPartException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public InvalidPartException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
