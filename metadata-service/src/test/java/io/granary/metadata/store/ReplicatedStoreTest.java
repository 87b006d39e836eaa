package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.Mount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas of the metadata store form a real JGroups cluster on loopback (TCP + TCPPING), as two
 * metadata-service instances do: what one writes the other reads, a replica that was down catches up when it
 * comes back, and a full restart of both keeps everything (SoftIndexFileStore).
 */
class ReplicatedStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    @TempDir
    Path dir;

    private final List<MetadataCaches> running = new ArrayList<>();
    private int portA;
    private int portB;

    @AfterEach
    void stopAll() {
        running.forEach(MetadataCaches::close);
    }

    @Test
    void replicasShareStateSurviveTheLossOfOneAndAFullRestart() throws IOException {
        portA = freePort();
        portB = freePort();
        MetadataCaches a = start("a", portA);
        MetadataCaches b = start("b", portB);
        assertThat(a.members()).isEqualTo(2);

        new DatasetRegistry(a.datasets(), JSON).create(dataset("imagenet"));
        new FileTree(a.files(), JSON).putAll("imagenet", files(0, 500));
        FileTree filesOnB = new FileTree(b.files(), JSON);
        assertThat(new DatasetRegistry(b.datasets(), JSON).get("imagenet")).isPresent();
        assertThat(filesOnB.count("imagenet")).isEqualTo(500);
        assertThat(filesOnB.list("imagenet", "f-000", null, null, 1000).files()).hasSize(100);

        stop(b);
        DatasetRegistry registryA = new DatasetRegistry(a.datasets(), JSON);
        registryA.create(dataset("coco"));
        new FileTree(a.files(), JSON).putAll("imagenet", files(500, 700));
        assertThat(registryA.get("imagenet")).as("the survivor keeps serving").isPresent();

        b = start("b", portB);
        assertThat(new DatasetRegistry(b.datasets(), JSON).get("coco")).as("changes made while b was down").isPresent();
        assertThat(new FileTree(b.files(), JSON).count("imagenet")).isEqualTo(700);

        stop(a);
        stop(b);
        a = start("a", portA);
        b = start("b", portB);
        for (MetadataCaches replica : List.of(a, b)) {
            assertThat(new DatasetRegistry(replica.datasets(), JSON).all()).extracting(Dataset::name)
                    .containsExactly("coco", "imagenet");
            FileTree tree = new FileTree(replica.files(), JSON);
            assertThat(tree.count("imagenet")).isEqualTo(700);
            assertThat(tree.stat("imagenet", "f-00042")).contains(file(42));
        }
    }

    private MetadataCaches start(String name, int port) {
        MetadataCaches caches = new MetadataCaches(new ClusterSettings("test-" + portA, name, "127.0.0.1", port,
                List.of("127.0.0.1[" + portA + "]", "127.0.0.1[" + portB + "]"), null, dir.resolve(name), 1000));
        running.add(caches);
        return caches;
    }

    private void stop(MetadataCaches caches) {
        caches.close();
        running.remove(caches);
    }

    private static Dataset dataset(String name) {
        return new Dataset(new DatasetSpec(name, List.of(new Mount("s3://b/" + name, null, null, null)), null, null,
                null, null, null).withDefaults(), DatasetStatus.pending(Instant.parse("2026-11-23T00:00:00Z")));
    }

    private static List<FileInfo> files(int from, int to) {
        return IntStream.range(from, to).mapToObj(ReplicatedStoreTest::file).toList();
    }

    private static FileInfo file(int i) {
        return new FileInfo("f-%05d".formatted(i), i, Instant.parse("2026-11-23T00:00:00Z"), "etag-" + i);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
