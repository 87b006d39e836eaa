package io.granary.kit.sigv4;

/** An S3 authentication error: code is the S3 error code, status the HTTP status. */
public final class AuthFailure extends RuntimeException {

    private final String code;
    private final int status;

    public AuthFailure(String code, int status, String message) {
        // No stack trace: these are answers to bad requests, thrown often and never a bug of ours.
        super(message, null, false, false);
        this.code = code;
        this.status = status;
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }

    static AuthFailure accessDenied(String message) {
        return new AuthFailure("AccessDenied", 403, message);
    }

    static AuthFailure signatureDoesNotMatch() {
        return new AuthFailure("SignatureDoesNotMatch", 403, "The request signature we calculated does not match the"
                + " signature you provided. Check your key and signing method.");
    }

    static AuthFailure invalidAccessKeyId() {
        return new AuthFailure("InvalidAccessKeyId", 403,
                "The AWS Access Key Id you provided does not exist in our records.");
    }

    static AuthFailure requestTimeTooSkewed() {
        return new AuthFailure("RequestTimeTooSkewed", 403,
                "The difference between the request time and the current time is too large.");
    }

    static AuthFailure headerMalformed(String reason) {
        return new AuthFailure("AuthorizationHeaderMalformed", 400, "The authorization header is malformed; " + reason);
    }

    static AuthFailure queryParametersError(String message) {
        return new AuthFailure("AuthorizationQueryParametersError", 400, message);
    }

    static AuthFailure invalidRequest(String message) {
        return new AuthFailure("InvalidRequest", 400, message);
    }

    static AuthFailure invalidArgument(String message) {
        return new AuthFailure("InvalidArgument", 400, message);
    }

    static AuthFailure incompleteBody(String message) {
        return new AuthFailure("IncompleteBody", 400, message);
    }

    static AuthFailure badDigest(String message) {
        return new AuthFailure("BadDigest", 400, message);
    }
}
