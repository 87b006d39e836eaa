package io.granary.devstack.testing;

import io.granary.devstack.S3ProxyServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real S3 server (S3Proxy) for a Quarkus test: {@code @QuarkusTestResource(S3Resource.class)}. The endpoint and
 * keys are exposed as {@code devstack.s3.*} properties, and the credentials as the secret
 * {@code devstack-s3} in a Kubernetes-style secrets directory ({@code granary.secrets-dir}), beside the cluster
 * credential and the test {@link Identities}.
 */
public class S3Resource implements QuarkusTestResourceLifecycleManager {

    public static final String ACCESS_KEY = "devstack-access";
    public static final String SECRET_KEY = "devstack-secret-0123456789";
    public static final String CREDENTIALS_REF = "devstack-s3";

    private S3ProxyServer server;
    private Path dir;

    @Override
    public Map<String, String> start() {
        try {
            dir = Files.createTempDirectory("granary-s3");
            Path secret = Files.createDirectories(dir.resolve("secrets").resolve(CREDENTIALS_REF));
            Files.writeString(secret.resolve("accessKey"), ACCESS_KEY);
            Files.writeString(secret.resolve("secretKey"), SECRET_KEY);
            Identities.write(dir.resolve("secrets"));
            server = S3ProxyServer.start(dir.resolve("server"), ACCESS_KEY, SECRET_KEY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Map.of(
                "devstack.s3.endpoint", server.endpoint().toString(),
                "devstack.s3.access-key", ACCESS_KEY,
                "devstack.s3.secret-key", SECRET_KEY,
                "devstack.s3.data-dir", dir.resolve("server").resolve("buckets").toString(),
                "granary.secrets-dir", dir.resolve("secrets").toString());
    }

    @Override
    public void stop() {
        if (server != null) {
            server.kill();
        }
        TempDirs.deleteQuietly(dir);
    }
}
