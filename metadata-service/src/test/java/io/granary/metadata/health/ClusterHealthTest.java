package io.granary.metadata.health;

import io.granary.metadata.store.ClusterSettings;
import io.granary.metadata.store.MetadataCaches;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Readiness of real replicas in a JGroups cluster on loopback, as their caches run, stop and leave. */
class ClusterHealthTest {

    @TempDir
    Path dir;

    private final List<MetadataCaches> running = new ArrayList<>();

    @AfterEach
    void stopAll() {
        running.forEach(MetadataCaches::close);
    }

    @Test
    void readyWhileItsCachesServeAndDownOnceOneStopsOrTheNodeLeaves() throws IOException {
        int portA = freePort();
        int portB = freePort();
        MetadataCaches a = start("a", portA, portB, portA);
        MetadataCaches b = start("b", portA, portB, portB);
        ClusterHealth healthA = new ClusterHealth(a);
        ClusterHealth healthB = new ClusterHealth(b);
        assertThat(healthA.call().getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(healthB.call().getData()).hasValueSatisfying(data -> assertThat(data).containsEntry("members", 2L));

        b.files().stop();  // one replicated cache gone: this replica can no longer answer for the file tree
        HealthCheckResponse stopped = healthB.call();
        assertThat(stopped.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(stopped.getData()).hasValueSatisfying(data -> assertThat(data.get("reason").toString())
                .contains("files"));
        assertThat(healthA.call().getStatus()).as("the other serves on").isEqualTo(HealthCheckResponse.Status.UP);

        b.close();  // its node left the cluster altogether
        running.remove(b);
        assertThat(healthB.call().getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(healthA.call().getStatus()).as("alone, it still holds the state").isEqualTo(HealthCheckResponse.Status.UP);
    }

    private MetadataCaches start(String name, int portA, int portB, int port) {
        MetadataCaches caches = new MetadataCaches(new ClusterSettings("health-" + portA, name, "127.0.0.1", port,
                List.of("127.0.0.1[" + portA + "]", "127.0.0.1[" + portB + "]"), null, dir.resolve(name), 100));
        running.add(caches);
        return caches;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
