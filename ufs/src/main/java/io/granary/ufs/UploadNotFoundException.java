package io.granary.ufs;

/**
 * No multipart upload with this id is in progress for this path: it never existed, was aborted or has been
 * completed (S3's NoSuchUpload).
 */
public class UploadNotFoundException extends UnderStoreException {

    public UploadNotFoundException(String message) {
        super(message);
    }

    public UploadNotFoundException(String message, Throwable cause) {
        super(message, cause);
    }
}
