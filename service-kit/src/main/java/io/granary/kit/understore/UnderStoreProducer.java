package io.granary.kit.understore;

import io.granary.kit.config.GranaryConfig;
import io.granary.kit.security.SecretException;
import io.granary.kit.security.SecretFiles;
import io.granary.ufs.Credentials;
import io.granary.ufs.HdfsLogin;
import io.granary.ufs.MountedStores;
import io.granary.ufs.UnderStoreException;
import io.granary.ufs.UnderStores;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Every service's under-stores: opened once per mount with the shared {@code granary.allowed-roots} and the
 * secrets of {@code granary.secrets-dir}, each request counted as {@code granary_understore_requests_total{op}}.
 */
@ApplicationScoped
public class UnderStoreProducer {

    /** Longer than any one read of a block range takes, so a forgotten store is never closed under a reader. */
    private static final Duration CLOSE_AFTER = Duration.ofMinutes(2);

    @Produces
    @ApplicationScoped
    MountedStores mountedStores(GranaryConfig config, MeterRegistry metrics) {
        SecretFiles secrets = new SecretFiles(config.secretsDir().orElse(null), System.getenv());
        UnderStores opener = new UnderStores(config.allowedRoots().orElse(List.of()), ref -> credentials(secrets, ref),
                ref -> hdfsLogin(secrets, ref));
        return new MountedStores(opener,
                op -> metrics.counter("granary.understore.requests", "op", op).increment(), CLOSE_AFTER);
    }

    /**
     * A mount's key pair. A secret that cannot be used fails as an under-store does, as the services map those: a
     * dataset naming it is refused with the reason.
     */
    static Credentials credentials(SecretFiles secrets, String ref) {
        try {
            return new Credentials(secrets.require(ref, "accessKey"), secrets.require(ref, "secretKey"));
        } catch (SecretException e) {
            throw new UnderStoreException(e.getMessage(), e);
        }
    }

    /**
     * An HDFS mount's identity: the secret's {@code keytab} file (Kerberos; only from a mounted secret, as a keytab
     * is binary) or its {@code user} (simple authentication).
     */
    static HdfsLogin hdfsLogin(SecretFiles secrets, String ref) {
        try {
            Optional<Path> keytab = secrets.file(ref, "keytab");
            if (keytab.isPresent()) {
                return HdfsLogin.keytab(keytab.get());
            }
            return HdfsLogin.user(secrets.require(ref, "user"));
        } catch (SecretException e) {
            throw new UnderStoreException(e.getMessage(), e);
        }
    }

    /** The request counters, at zero from the start: a service that never touched an under-store still says so. */
    void countFromStart(@Observes StartupEvent start, MeterRegistry metrics) {
        MountedStores.COUNTED_OPERATIONS.forEach(op -> metrics.counter("granary.understore.requests", "op", op));
    }

    void close(@Disposes MountedStores stores) {
        stores.close();
    }
}
