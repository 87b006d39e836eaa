package io.granary.kit.security;

import io.granary.kit.config.GranaryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The secret only Granary's services share: each shows it to the others as {@code Authorization: Bearer ...}, and
 * a worker's block API and every internal route take nothing else. Without it a service does not start.
 */
@ApplicationScoped
public class ClusterCredential {

    /** The header by which a service that forwards a caller's request names that caller. */
    public static final String ON_BEHALF_OF = "X-Granary-On-Behalf-Of";

    private final byte[] token;
    private final String header;

    @Inject
    ClusterCredential(GranaryConfig shared, SecurityConfig config) {
        this(new SecretFiles(shared.secretsDir().orElse(null), System.getenv()), config.clusterRef());
    }

    public ClusterCredential(SecretFiles secrets, String ref) {
        String value = secrets.read(ref, "token").orElseThrow(() -> new IllegalStateException(
                "no cluster credential: Granary's services need the same token in " + secrets.where(ref, "token")));
        this.token = value.getBytes(StandardCharsets.UTF_8);
        this.header = "Bearer " + value;
    }

    /** The {@code Authorization} value a service sends. */
    public String authorization() {
        return header;
    }

    /** In constant time: how long a comparison takes tells nothing of where a guess went wrong. */
    public boolean matches(String bearerToken) {
        return MessageDigest.isEqual(token, bearerToken.getBytes(StandardCharsets.UTF_8));
    }
}
