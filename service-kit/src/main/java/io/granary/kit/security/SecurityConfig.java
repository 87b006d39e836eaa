package io.granary.kit.security;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Who may call a service, under {@code granary.security}; secrets come from {@code granary.secrets-dir}. */
@ConfigMapping(prefix = "granary.security")
public interface SecurityConfig {

    /**
     * The secret holding the cluster credential ({@code <secrets-dir>/<ref>/token}, or
     * {@code GRANARY_SECRET_<REF>_TOKEN}): Granary's services show it to each other, and only they have it.
     */
    @WithDefault("granary-cluster")
    String clusterRef();

    /**
     * The secret holding the identities ({@code <secrets-dir>/<ref>/identities.json}): each a name, a role, the
     * datasets it may touch and the secret of its own keys. Read again when it changes, without a restart.
     */
    @WithDefault("granary-access")
    String accessRef();

    /** How often the identities file is checked for changes. */
    @WithDefault("5s")
    Duration reload();

    /** Request paths this service guards (prefixes); {@code /q/} (health, metrics, OpenAPI) is never guarded. */
    @WithDefault("/")
    List<String> paths();

    /** The largest management request body read (a SigV4-signed body is hashed before it is let through). */
    @WithDefault("1048576")
    int maxBody();

    TokenReview tokenReview();

    /** Kubernetes ServiceAccount tokens, checked by the API server's TokenReview. */
    interface TokenReview {

        /** Check bearer tokens that are no static token by TokenReview (in a pod). */
        @WithDefault("false")
        boolean enabled();

        @WithDefault("https://kubernetes.default.svc")
        URI apiServer();

        /** This pod's own ServiceAccount token and the API server's CA, as Kubernetes mounts them. */
        @WithDefault("/var/run/secrets/kubernetes.io/serviceaccount")
        Path serviceAccountDir();

        /** A reviewed token's answer is kept this long. */
        @WithDefault("1m")
        Duration cacheFor();
    }
}
