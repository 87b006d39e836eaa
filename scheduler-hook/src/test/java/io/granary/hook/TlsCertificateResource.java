package io.granary.hook;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.smallrye.certs.CertificateGenerator;
import io.smallrye.certs.CertificateRequest;
import io.smallrye.certs.Format;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

/**
 * A fresh self-signed PEM certificate for localhost, laid out as the kubelet mounts a cert-manager Secret:
 * {@code tls.crt} and {@code tls.key} reached through a {@code ..data} symlink, which a renewal swaps atomically
 * to a new directory, so a reader never sees a new certificate with an old key.
 */
public class TlsCertificateResource implements QuarkusTestResourceLifecycleManager {

    private static final Path MOUNT = Path.of("target", "certs").toAbsolutePath();

    @Override
    public Map<String, String> start() {
        try {
            Files.createDirectories(MOUNT);
            for (String file : new String[]{"tls.crt", "tls.key"}) {
                Path link = MOUNT.resolve(file);
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, Path.of("..data", file));
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not lay out the test certificate", e);
        }
        renew();
        return Map.of(
                "quarkus.tls.key-store.pem.0.cert", MOUNT.resolve("tls.crt").toString(),
                "quarkus.tls.key-store.pem.0.key", MOUNT.resolve("tls.key").toString());
    }

    /** Issues a new certificate and key, and swaps them in together, as the kubelet does on renewal. */
    public static void renew() {
        try {
            Path generation = Files.createTempDirectory(MOUNT, "..gen-");
            new CertificateGenerator(generation, true).generate(new CertificateRequest()
                    .withName("hook").withCN("localhost").withSubjectAlternativeName("IP:127.0.0.1")
                    .withFormat(Format.PEM));
            Files.move(generation.resolve("hook.crt"), generation.resolve("tls.crt"));
            Files.move(generation.resolve("hook.key"), generation.resolve("tls.key"));
            Path next = MOUNT.resolve("..data_tmp");
            Files.deleteIfExists(next);
            Files.createSymbolicLink(next, generation.getFileName());
            Files.move(next, MOUNT.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        } catch (Exception e) {
            throw new IllegalStateException("could not generate a test certificate", e);
        }
    }

    @Override
    public void stop() {
    }
}
