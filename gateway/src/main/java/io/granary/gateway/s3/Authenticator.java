package io.granary.gateway.s3;

import io.granary.gateway.auth.AuthFailure;
import io.granary.gateway.auth.IncomingRequest;
import io.granary.gateway.auth.PayloadMode;
import io.granary.gateway.auth.Principal;
import io.granary.gateway.auth.SigV4Verifier;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.security.AccessList;
import io.granary.kit.security.Caller;
import io.granary.kit.security.Role;
import io.granary.kit.security.SignedCallers;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who calls: the access keys of the identities ({@code AccessList}), checked by AWS Signature V4, for the S3 API
 * and for signed management calls alike. An unsigned S3 request is the anonymous reader when
 * {@code granary.gateway.auth.anonymous} allows it.
 */
@ApplicationScoped
public class Authenticator implements SignedCallers {

    private static final Caller ANONYMOUS = new Caller("anonymous", Role.READER, Set.of());

    private final AccessList access;
    private final SigV4Verifier verifier;

    Authenticator(GatewayConfig config, AccessList access) {
        this.access = access;
        this.verifier = new SigV4Verifier(key -> access.byAccessKey(key).map(AccessList.Keyed::secretKey),
                config.region(), config.auth().anonymous(), Clock.systemUTC());
    }

    /** @throws S3Exception with S3's code when the request is not signed by a known key */
    Principal authenticate(HttpServerRequest http) {
        try {
            return verifier.verify(incoming(http));
        } catch (AuthFailure failure) {
            throw new S3Exception(failure.status(), failure.code(), failure.getMessage());
        }
    }

    /** The identity behind a verified request (its key may have gone since: then no one). */
    Caller caller(Principal principal) {
        if (principal.payload() == PayloadMode.ANONYMOUS) {
            return ANONYMOUS;
        }
        return access.byAccessKey(principal.accessKeyId()).map(AccessList.Keyed::caller)
                .orElseThrow(() -> new S3Exception(403, "InvalidAccessKeyId", "The access key is not known."));
    }

    /** A signed management call: signed headers, and a body the access filter hashes when the signature covers it. */
    @Override
    public Signed verify(HttpServerRequest http) {
        Principal principal;
        try {
            principal = verifier.verify(incoming(http));
        } catch (AuthFailure failure) {
            throw new Refused(failure.status() == 403 ? 401 : failure.status(), failure.getMessage());
        }
        if (principal.payload() == PayloadMode.ANONYMOUS) {
            throw new Refused(401, "this call needs credentials: an AWS Signature V4 or a bearer token");
        }
        if (principal.payload() != PayloadMode.SIGNED && principal.payload() != PayloadMode.UNSIGNED) {
            throw new Refused(400, "a management call's body is signed whole or not at all, never streamed");
        }
        Caller caller = access.byAccessKey(principal.accessKeyId()).map(AccessList.Keyed::caller)
                .orElseThrow(() -> new Refused(401, "the access key is not known"));
        return new Signed(caller, principal.payloadSha256());
    }

    private static IncomingRequest incoming(HttpServerRequest http) {
        Map<String, List<String>> headers = new TreeMap<>();
        http.headers().forEach(entry -> headers.computeIfAbsent(entry.getKey().toLowerCase(Locale.ROOT),
                name -> new ArrayList<>()).add(entry.getValue()));
        if (!headers.containsKey("host") && http.authority() != null) {
            headers.put("host", List.of(http.authority().toString()));  // HTTP/2 carries it as :authority
        }
        return new IncomingRequest(http.method().name(), http.path(), http.query(), headers);
    }
}
