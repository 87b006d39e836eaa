package io.granary.preload;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.Topics;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.KafkaRecords;
import io.smallrye.reactive.messaging.kafka.companion.KafkaCompanion;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/** The real services around the preload-service: datasets through the metadata-service, blocks on the workers. */
final class Cluster {

    private final String metadata;

    Cluster(String metadata) {
        this.metadata = metadata;
    }

    static void files(Path dir, int count, int size, long seed) {
        Random random = new Random(seed);
        try {
            Files.createDirectories(dir);
            for (int i = 0; i < count; i++) {
                byte[] content = new byte[size + i % 100];
                random.nextBytes(content);
                Files.write(dir.resolve(String.format("img-%05d.jpg", i)), content);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void dataset(String name, String blockSize, String... mounts) {
        Datasets.createBound(URI.create(metadata), Datasets.spec(name, blockSize, mounts));
    }

    List<FileInfo> files(String dataset) {
        List<FileInfo> files = new ArrayList<>();
        String cursor = null;
        do {
            var page = given().baseUri(metadata).queryParam("limit", 1000)
                    .queryParams(cursor == null ? Map.of() : Map.of("cursor", cursor))
                    .get("/api/v1/datasets/" + dataset + "/files").jsonPath();
            List<Map<String, Object>> entries = page.getList("files");
            for (Map<String, Object> entry : entries) {
                files.add(new FileInfo((String) entry.get("path"), ((Number) entry.get("size")).longValue(), null,
                        (String) entry.get("etag")));
            }
            cursor = page.getString("nextCursor");
        } while (cursor != null);
        return files;
    }

    List<Worker> liveWorkers(int expected) {
        await().atMost(Duration.ofSeconds(60)).until(() -> workers().size() == expected);
        return workers();
    }

    private List<Worker> workers() {
        List<Map<String, Object>> all = given().baseUri(metadata).get("/api/v1/workers").jsonPath().getList("$");
        return all.stream().filter(w -> Boolean.TRUE.equals(w.get("live")))
                .map(w -> new Worker((String) w.get("id"), (String) w.get("node"), (String) w.get("address"), Map.of(),
                        List.of(), null, true, null, 0, 0, 0, null)).toList();
    }

    /** The bytes each worker should hold of the dataset by rendezvous placement, by worker address. */
    static Map<String, Long> expectedBytes(String dataset, List<FileInfo> files, long blockSize, List<Worker> workers,
                                          int replicas) {
        Map<String, Long> bytes = new HashMap<>();
        workers.forEach(worker -> bytes.put(worker.address(), 0L));
        for (FileInfo file : files) {
            for (int index = 0; index < Blocks.count(file.size(), blockSize); index++) {
                String block = BlockId.of(dataset, file.path(), file.etag(), index).toString();
                long length = Blocks.length(file.size(), blockSize, index);
                for (Worker owner : RendezvousPlacement.owners(block, workers, Map.of(), replicas)) {
                    bytes.merge(owner.address(), length, Long::sum);
                }
            }
        }
        return bytes;
    }

    static long heldBy(String worker, String dataset) {
        Number held = given().baseUri(worker).get("/blocks/stats").jsonPath().get("cachedBytes." + dataset);
        return held == null ? 0 : held.longValue();
    }

    /** The dead letters of {@code topic} once they hold every one of {@code values} (other tests add theirs). */
    static List<ConsumerRecord<String, String>> deadLetters(KafkaCompanion kafka, String topic, List<String> values) {
        List<List<ConsumerRecord<String, String>>> seen = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            List<ConsumerRecord<String, String>> dead = KafkaRecords.all(kafka, Topics.DEADLETTER).stream()
                    .filter(record -> record.headers().lastHeader(DeadLetter.TOPIC_HEADER) != null && topic.equals(
                            new String(record.headers().lastHeader(DeadLetter.TOPIC_HEADER).value(),
                                    StandardCharsets.UTF_8)))
                    .filter(record -> values.contains(record.value())).toList();
            seen.add(0, dead);
            return dead.stream().map(ConsumerRecord::value).collect(Collectors.toSet()).containsAll(values);
        });
        return seen.get(0);
    }
}
