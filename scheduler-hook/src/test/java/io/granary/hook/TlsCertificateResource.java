package io.granary.hook;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.smallrye.certs.CertificateGenerator;
import io.smallrye.certs.CertificateRequest;
import io.smallrye.certs.Format;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A fresh self-signed PEM certificate for localhost, laid out as a cert-manager Secret would be. */
public class TlsCertificateResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        try {
            Path dir = Files.createDirectories(Path.of("target", "certs"));
            new CertificateGenerator(dir, true).generate(new CertificateRequest()
                    .withName("hook").withCN("localhost").withSubjectAlternativeName("IP:127.0.0.1")
                    .withFormat(Format.PEM));
            return Map.of(
                    "quarkus.tls.key-store.pem.0.cert", dir.resolve("hook.crt").toAbsolutePath().toString(),
                    "quarkus.tls.key-store.pem.0.key", dir.resolve("hook.key").toAbsolutePath().toString());
        } catch (Exception e) {
            throw new IllegalStateException("could not generate a test certificate", e);
        }
    }

    @Override
    public void stop() {
    }
}
