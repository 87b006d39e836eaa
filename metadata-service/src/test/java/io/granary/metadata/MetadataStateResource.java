package io.granary.metadata;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** A fresh data directory, a free JGroups port and a directory local mounts may use, for each test run. */
public class MetadataStateResource implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        try {
            Path dir = Files.createTempDirectory("granary-metadata");
            Path local = Files.createDirectories(dir.resolve("local"));
            return Map.of(
                    "granary.metadata.data-dir", dir.resolve("state").toString(),
                    "test.cluster-port", String.valueOf(freePort()),
                    "granary.allowed-roots", local.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
