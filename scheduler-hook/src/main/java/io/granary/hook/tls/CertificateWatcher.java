package io.granary.hook.tls;

import io.granary.hook.config.HookConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.tls.CertificateUpdatedEvent;
import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Reloads the webhook's certificate when its files change (cert-manager renewed the Secret), and only then.
 * Quarkus' own periodic reload ({@code quarkus.tls.reload-period}) swaps the server's TLS context at every tick,
 * changed or not, and Vert.x drops a connection accepted during a swap: the API server would see a failed
 * webhook call every period.
 */
@ApplicationScoped
public class CertificateWatcher {

    private static final Logger LOG = Logger.getLogger(CertificateWatcher.class);
    /** The name the TLS registry gives its default configuration, which the HTTPS server uses. */
    private static final String DEFAULT_TLS = "<default>";

    private final HookConfig config;
    private final TlsConfigurationRegistry registry;
    private final Event<CertificateUpdatedEvent> updated;
    private final Path cert;
    private final Path key;
    private byte[] lastDigest;

    CertificateWatcher(HookConfig config, TlsConfigurationRegistry registry, Event<CertificateUpdatedEvent> updated,
                       @ConfigProperty(name = "quarkus.tls.key-store.pem.0.cert") Path cert,
                       @ConfigProperty(name = "quarkus.tls.key-store.pem.0.key") Path key) {
        this.config = config;
        this.registry = registry;
        this.updated = updated;
        this.cert = cert;
        this.key = key;
    }

    void start(@Observes StartupEvent event, Vertx vertx) {
        lastDigest = digest();
        vertx.setPeriodic(config.tlsCheckPeriod().toMillis(), id -> vertx.executeBlocking(() -> {
            check();
            return null;
        }, false));
    }

    private synchronized void check() {
        byte[] now = digest();
        if (now == null || Arrays.equals(now, lastDigest)) {
            return;  // unchanged, or caught half-written: the next check sees it whole
        }
        TlsConfiguration tls = registry.getDefault().orElseThrow();
        try {
            if (tls.reload()) {
                updated.fire(new CertificateUpdatedEvent(DEFAULT_TLS, tls));
                lastDigest = now;
                LOG.infof("webhook certificate reloaded from %s", cert);
            }
        } catch (RuntimeException e) {
            LOG.warnf("could not reload the webhook certificate from %s (%s); still serving the previous one", cert, e.toString());
        }
    }

    private byte[] digest() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(Files.readAllBytes(cert));
            sha.update(Files.readAllBytes(key));
            return sha.digest();
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
