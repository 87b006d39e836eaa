package io.granary.gateway.s3;

import io.granary.kit.sigv4.AuthFailure;
import io.granary.kit.sigv4.IncomingRequest;
import io.granary.kit.sigv4.PayloadMode;
import io.granary.kit.sigv4.Principal;
import io.granary.kit.sigv4.SigV4Verifier;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.security.AccessList;
import io.granary.kit.security.Caller;
import io.granary.kit.security.Role;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.util.Set;

/**
 * Who calls the S3 API: the access keys of the identities ({@code AccessList}), checked by AWS Signature V4 (the
 * management API's signed calls are the access filter's). An unsigned S3 request is the anonymous reader when
 * {@code granary.gateway.auth.anonymous} allows it.
 */
@ApplicationScoped
public class Authenticator {

    /** The caller of an unsigned request: it has no role, and reaches only what an ACL grants everyone. */
    static final Caller ANONYMOUS = new Caller("anonymous", Role.READER, Set.of());

    private final AccessList access;
    private final SigV4Verifier verifier;

    Authenticator(GatewayConfig config, GranaryConfig shared, AccessList access) {
        this.access = access;
        this.verifier = new SigV4Verifier(key -> access.byAccessKey(key).map(AccessList.Keyed::secretKey),
                shared.region(), config.auth().anonymous(), Clock.systemUTC());
    }

    /** @throws S3Exception with S3's code when the request is not signed by a known key */
    Principal authenticate(HttpServerRequest http) {
        try {
            return verifier.verify(IncomingRequest.of(http));
        } catch (AuthFailure failure) {
            throw new S3Exception(failure.status(), failure.code(), failure.getMessage());
        }
    }

    /** Whether an identity of that name exists (an ACL grants only to those). */
    boolean known(String name) {
        return access.byName(name).isPresent();
    }

    /** The identity behind a verified request (its key may have gone since: then no one). */
    Caller caller(Principal principal) {
        if (principal.payload() == PayloadMode.ANONYMOUS) {
            return ANONYMOUS;
        }
        return access.byAccessKey(principal.accessKeyId()).map(AccessList.Keyed::caller)
                .orElseThrow(() -> new S3Exception(403, "InvalidAccessKeyId", "The access key is not known."));
    }
}
