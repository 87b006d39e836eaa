package io.granary.kit.understore;

import io.granary.kit.config.GranaryConfig;
import io.granary.ufs.CredentialsResolver;
import io.granary.ufs.MountedStores;
import io.granary.ufs.UnderStores;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

import java.time.Duration;
import java.util.List;

/**
 * Every service's under-stores: opened once per mount with the shared {@code granary.allowed-roots} and
 * {@code granary.secrets-dir}, each request counted as {@code granary_understore_requests_total{op}}.
 */
@ApplicationScoped
public class UnderStoreProducer {

    /** Longer than any one read of a block range takes, so a forgotten store is never closed under a reader. */
    private static final Duration CLOSE_AFTER = Duration.ofMinutes(2);

    @Produces
    @ApplicationScoped
    MountedStores mountedStores(GranaryConfig config, MeterRegistry metrics) {
        UnderStores opener = new UnderStores(config.allowedRoots().orElse(List.of()),
                CredentialsResolver.fromEnvironment(config.secretsDir().orElse(null)));
        return new MountedStores(opener,
                op -> metrics.counter("granary.understore.requests", "op", op).increment(), CLOSE_AFTER);
    }

    void close(@Disposes MountedStores stores) {
        stores.close();
    }
}
