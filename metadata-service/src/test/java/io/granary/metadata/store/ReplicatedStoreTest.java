package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
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
 * comes back, and a full restart of both keeps everything (SoftIndexFileStore, and each replica's file index).
 */
class ReplicatedStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

    @TempDir
    Path dir;

    private final List<Replica> running = new ArrayList<>();
    private int portA;
    private int portB;

    @AfterEach
    void stopAll() {
        running.forEach(Replica::close);
    }

    @Test
    void replicasShareStateSurviveTheLossOfOneAndAFullRestart() throws IOException {
        portA = freePort();
        portB = freePort();
        Replica a = start("a", portA);
        Replica b = start("b", portB);
        assertThat(a.caches().members()).isEqualTo(2);

        new DatasetRegistry(a.caches().datasets(), JSON).create(dataset("imagenet"));
        a.files().putAll("imagenet", files(0, 500));
        assertThat(new DatasetRegistry(b.caches().datasets(), JSON).get("imagenet")).isPresent();
        assertThat(b.files().count("imagenet")).isEqualTo(500);
        assertThat(b.files().list("imagenet", "f-000", null, null, 1000).files()).hasSize(100);

        stop(b);
        DatasetRegistry registryA = new DatasetRegistry(a.caches().datasets(), JSON);
        registryA.create(dataset("coco"));
        a.files().putAll("imagenet", files(500, 700));
        a.files().remove("imagenet", "f-00007");
        assertThat(registryA.get("imagenet")).as("the survivor keeps serving").isPresent();

        b = start("b", portB);  // joins: its index is built again from what a sends
        assertThat(new DatasetRegistry(b.caches().datasets(), JSON).get("coco")).as("changes made while b was down")
                .isPresent();
        assertThat(b.files().count("imagenet")).isEqualTo(699);
        assertThat(b.files().stat("imagenet", "f-00007")).as("removed while b was down").isEmpty();

        stop(a);
        stop(b);
        a = start("a", portA);  // alone: its store and its index, closed cleanly, are kept as they are
        b = start("b", portB);
        for (Replica replica : List.of(a, b)) {
            assertThat(new DatasetRegistry(replica.caches().datasets(), JSON).all()).extracting(Dataset::name)
                    .containsExactly("coco", "imagenet");
            assertThat(replica.files().count("imagenet")).isEqualTo(699);
            assertThat(replica.files().stat("imagenet", "f-00042")).contains(file(42));
            assertThat(replica.files().list("imagenet", "", null, "f-00005", 3).files()).extracting(FileInfo::path)
                    .containsExactly("f-00006", "f-00008", "f-00009");
        }
    }

    @Test
    void aListingRollsDirectoriesUpAndResumesAfterItsCursorOnEveryReplica() throws IOException {
        portA = freePort();
        portB = freePort();
        Replica a = start("a", portA);
        Replica b = start("b", portB);
        new DatasetRegistry(a.caches().datasets(), JSON).create(dataset("coco"));
        a.files().putAll("coco", List.of(file("train/a/1.jpg"), file("train/a/2.jpg"), file("train/b/1.jpg"),
                file("train/c.jpg"), file("val/1.jpg"), file("zz.txt")));
        a.files().putAll("cocoa", List.of(file("train/x.jpg")));  // a dataset whose name starts with the other's

        for (Replica replica : List.of(a, b)) {
            FileTree tree = replica.files();
            FileListing top = tree.list("coco", "", "/", null, 1000);
            assertThat(top.prefixes()).containsExactly("train/", "val/");
            assertThat(top.files()).extracting(FileInfo::path).containsExactly("zz.txt");
            FileListing first = tree.list("coco", "train/", "/", null, 2);
            assertThat(first.prefixes()).containsExactly("train/a/", "train/b/");
            assertThat(first.nextCursor()).isEqualTo("train/b/");
            FileListing second = tree.list("coco", "train/", "/", first.nextCursor(), 2);
            assertThat(second.files()).extracting(FileInfo::path).containsExactly("train/c.jpg");
            assertThat(second.nextCursor()).isNull();
            assertThat(tree.paths("coco", "train/a/1.jpg", false, "train/c.jpg", 10))
                    .containsExactly("train/a/2.jpg", "train/b/1.jpg");
            assertThat(tree.paths("coco", "", true, null, 2)).containsExactly("train/a/1.jpg", "train/a/2.jpg");
            assertThat(tree.count("coco")).isEqualTo(6);
            assertThat(tree.count("cocoa")).isEqualTo(1);
        }
        a.files().drop("coco");
        assertThat(b.files().count("coco")).isZero();
        assertThat(b.files().list("cocoa", "", null, null, 10).files()).hasSize(1);
    }

    private Replica start(String name, int port) {
        MetadataCaches caches = new MetadataCaches(new ClusterSettings("test-" + portA, name, "127.0.0.1", port,
                List.of("127.0.0.1[" + portA + "]", "127.0.0.1[" + portB + "]"), null, dir.resolve(name), 100));
        Replica replica = new Replica(caches, new FileTree(caches.files(), JSON, dir.resolve(name).resolve("file-index"),
                !caches.joined(), 1 << 20));
        running.add(replica);
        return replica;
    }

    private void stop(Replica replica) {
        replica.close();
        running.remove(replica);
    }

    /** One metadata-service's stores: the replicated caches and its own file index. */
    private record Replica(MetadataCaches caches, FileTree files) implements AutoCloseable {

        @Override
        public void close() {
            files.close();
            caches.close();
        }
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

    private static FileInfo file(String path) {
        return new FileInfo(path, path.length(), Instant.parse("2026-11-23T00:00:00Z"), "etag-" + path);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
