package io.granary.gateway.s3;

/**
 * An S3 error response: the code and status S3 itself would answer with, and a message for people. Thrown anywhere
 * on the S3 path and rendered as S3's XML error by {@link S3Responses}.
 */
public final class S3Exception extends RuntimeException {

    private final String code;
    private final int status;

    public S3Exception(int status, String code, String message) {
        super(message);
        this.code = code;
        this.status = status;
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    public static S3Exception noSuchBucket(String bucket) {
        return new S3Exception(404, "NoSuchBucket", "The specified bucket does not exist: " + bucket);
    }

    public static S3Exception noSuchKey(String key) {
        return new S3Exception(404, "NoSuchKey", "The specified key does not exist: " + key);
    }

    public static S3Exception invalidArgument(String message) {
        return new S3Exception(400, "InvalidArgument", message);
    }

    public static S3Exception notImplemented(String what) {
        return new S3Exception(501, "NotImplemented", what + " is not implemented by this gateway");
    }

    public static S3Exception malformedXml(String why) {
        return new S3Exception(400, "MalformedXML", "The XML you provided was not well-formed or did not validate "
                + "against our published schema: " + why);
    }

    public static S3Exception accessDenied(String message) {
        return new S3Exception(403, "AccessDenied", message);
    }

    public static S3Exception slowDown(String message) {
        return new S3Exception(503, "SlowDown", message);
    }

    public static S3Exception internal(String message) {
        return new S3Exception(500, "InternalError", message);
    }
}
