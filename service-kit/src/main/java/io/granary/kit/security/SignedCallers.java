package io.granary.kit.security;

import io.granary.kit.config.GranaryConfig;
import io.granary.kit.sigv4.AuthFailure;
import io.granary.kit.sigv4.IncomingRequest;
import io.granary.kit.sigv4.PayloadMode;
import io.granary.kit.sigv4.Principal;
import io.granary.kit.sigv4.SigV4Verifier;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;

/**
 * Callers who sign a management call with AWS Signature V4, with the S3 keys of their identity, as any AWS-signing
 * client can: on every service's port, the gateway's included. A call that changes something signs its body.
 */
@ApplicationScoped
public class SignedCallers {

    /**
     * A signed request's caller.
     *
     * @param payloadSha256 the hex SHA-256 the body must have when the signature covers it, else null
     */
    public record Signed(Caller caller, String payloadSha256) {
    }

    private final AccessList access;
    private final SigV4Verifier verifier;

    SignedCallers(AccessList access, GranaryConfig shared) {
        this.access = access;
        this.verifier = new SigV4Verifier(key -> access.byAccessKey(key).map(AccessList.Keyed::secretKey),
                shared.region(), false, Clock.systemUTC());
    }

    /**
     * @throws Refused when the signature does not check out, the body is streamed (aws-chunked), or the call writes
     *                 (any method but GET and HEAD) and its signature does not cover its body
     */
    public Signed verify(HttpServerRequest http) {
        Principal principal;
        try {
            principal = verifier.verify(IncomingRequest.of(http));
        } catch (AuthFailure failure) {
            throw new Refused(failure.status() == 403 ? 401 : failure.status(), failure.getMessage());
        }
        if (principal.payload() != PayloadMode.SIGNED && principal.payload() != PayloadMode.UNSIGNED) {
            throw new Refused(400, "a management call's body is signed whole or not at all, never streamed");
        }
        // A presigned URL is handed to others to use as they like, and an unsigned payload lets anyone who sees the
        // request send its signature with another body: neither may change anything.
        boolean writes = http.method() != HttpMethod.GET && http.method() != HttpMethod.HEAD;
        boolean presigned = http.getHeader(HttpHeaders.AUTHORIZATION) == null;  // verified, so signed in its URL
        if (writes && (presigned || principal.payload() != PayloadMode.SIGNED)) {
            throw new Refused(403, "a management call that changes something must sign its body: in the "
                    + "Authorization header, with the body's SHA-256 as x-amz-content-sha256 (that of no body for "
                    + "none), never UNSIGNED-PAYLOAD nor in a presigned URL");
        }
        Caller caller = access.byAccessKey(principal.accessKeyId()).map(AccessList.Keyed::caller)
                .orElseThrow(() -> new Refused(401, "the access key is not known"));
        return new Signed(caller, principal.payloadSha256());
    }

    /** Why a request's credential was not accepted; its message goes to the caller. */
    public static final class Refused extends RuntimeException {
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
