package io.granary.gateway.s3;

import io.granary.gateway.auth.AuthFailure;
import io.granary.gateway.auth.IncomingRequest;
import io.granary.gateway.auth.Principal;
import io.granary.gateway.auth.SigV4Verifier;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import io.granary.ufs.Credentials;
import io.granary.ufs.CredentialsResolver;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who may use the S3 API: the access keys of the secrets named in {@code granary.gateway.auth.credentials-refs}
 * (read like a dataset's credentialsRef, never from plain config), checked by AWS Signature V4.
 */
@ApplicationScoped
public class Authenticator {

    private static final Logger LOG = Logger.getLogger(Authenticator.class);

    private final SigV4Verifier verifier;

    Authenticator(GatewayConfig config, GranaryConfig shared) {
        CredentialsResolver resolver = CredentialsResolver.fromEnvironment(shared.secretsDir().orElse(null));
        Map<String, String> keys = new ConcurrentHashMap<>();
        for (String ref : config.auth().credentialsRefs().orElse(List.of())) {
            Optional<Credentials> credentials = resolver.resolve(ref);
            if (credentials.isEmpty()) {
                LOG.warnf("S3 credentials '%s' not found: its key cannot sign requests", ref);
            }
            credentials.ifPresent(c -> keys.put(c.accessKey(), c.secretKey()));
        }
        if (keys.isEmpty() && !config.auth().anonymous()) {
            LOG.warn("no S3 access keys are configured and anonymous access is off: every S3 request is refused");
        }
        this.verifier = new SigV4Verifier(key -> Optional.ofNullable(keys.get(key)), config.region(),
                config.auth().anonymous(), Clock.systemUTC());
    }

    /** @throws S3Exception with S3's code when the request is not signed by a known key */
    Principal authenticate(HttpServerRequest http) {
        Map<String, List<String>> headers = new TreeMap<>();
        http.headers().forEach(entry -> headers.computeIfAbsent(entry.getKey().toLowerCase(Locale.ROOT),
                name -> new ArrayList<>()).add(entry.getValue()));
        if (!headers.containsKey("host") && http.authority() != null) {
            headers.put("host", List.of(http.authority().toString()));  // HTTP/2 carries it as :authority
        }
        try {
            return verifier.verify(new IncomingRequest(http.method().name(), http.path(), http.query(), headers));
        } catch (AuthFailure failure) {
            throw new S3Exception(failure.status(), failure.code(), failure.getMessage());
        }
    }
}
