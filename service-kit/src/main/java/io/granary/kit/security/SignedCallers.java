package io.granary.kit.security;

import io.vertx.core.http.HttpServerRequest;

/**
 * Callers who sign their requests with AWS Signature V4, for a service that verifies it (the gateway, which holds
 * the verifier of its S3 API); a service without one refuses signed management calls.
 */
public interface SignedCallers {

    /**
     * A signed request's caller.
     *
     * @param payloadSha256 the hex SHA-256 the body must have when the signature covers it, else null
     */
    record Signed(Caller caller, String payloadSha256) {
    }

    /** @throws Refused when the signature does not check out */
    Signed verify(HttpServerRequest request);

    /** Why a request's credential was not accepted; its message goes to the caller. */
    final class Refused extends RuntimeException {
        private final int status;

        public Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
