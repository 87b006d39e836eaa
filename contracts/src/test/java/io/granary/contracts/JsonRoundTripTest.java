package io.granary.contracts;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.FileError;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.dataload.Target;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.dataset.NodeCache;
import io.granary.contracts.events.BlockEvent;
import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.DeadLetter;
import io.granary.contracts.events.HeartbeatEvent;
import io.granary.contracts.events.ReadCounters;
import io.granary.contracts.events.Topics;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.granary.contracts.QuarkusJson.MAPPER;
import static io.granary.contracts.QuarkusJson.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;

class JsonRoundTripTest {

    private static final Instant AT = Instant.parse("2026-11-23T08:30:00Z");
    private static final Mount MOUNT = new Mount("s3://train/imagenet", null,
            Map.of("endpoint", "http://127.0.0.1:9000", "region", "us-east-1"), "minio");
    private static final WorkerLevel MEM = new WorkerLevel(Medium.MEM, "/dev/shm/granary", 2L << 30, 1L << 20);

    @Test
    void everyRecordSurvivesARoundTrip() {
        DatasetSpec spec = new DatasetSpec("imagenet", List.of(MOUNT), "16MiB", 2, Map.of("zone", "a"), "10m", true);
        List<Object> values = List.of(
                MOUNT,
                spec,
                new Dataset(spec, new DatasetStatus(DatasetPhase.BOUND, null, 3, 300, 100, 33.3, 0.5, 4096, AT, AT)),
                new FileListing(List.of(new FileInfo("train/a.jpg", 10, AT, "abc")), List.of("train/b/"), "train/a.jpg"),
                new NodeCache("node-1", 123, List.of("worker-1")),
                new Worker("worker-1", "node-1", "http://127.0.0.1:8082", Map.of("zone", "a"), List.of(MEM), AT, true, AT, 1,
                        2, 3, new DrainStatus(DrainStatus.Phase.DRAINING, 10, 4, 1, AT, AT, null)),
                new DataLoadSpec("imagenet", List.of(new Target("train", 2)), List.of("val/x"), false, LoadPolicy.CRON,
                        "0 2 * * *", 5),
                new PreloadRequest("req-1", "imagenet", List.of(new Target("", null)), List.of(), true, LoadPolicy.ONCE,
                        null, 0),
                new DataLoadStatus("load-1", "imagenet", DataLoadPhase.LOADING, 1, 2, 10, 20, 5.5, 2L, AT, null,
                        List.of(new FileError("bad", "gone")), AT),
                new BlockEvent(BlockEvent.Type.CORRUPT, "worker-1", "node-1", "imagenet", "0".repeat(32) + "-0", 1,
                        16, Medium.SSD, AT),
                new BlockEvent(BlockEvent.Type.CACHED, "worker-1", "node-1", "imagenet", null, 40, 640, Medium.MEM, AT),
                new HeartbeatEvent("worker-1", "node-1", "http://127.0.0.1:8082", Map.of(), List.of(MEM), 1, 2, 3, 4,
                        Map.of("imagenet", new ReadCounters(1, 2, 3)), Map.of("imagenet", 16L), AT, null,
                        Duration.ofSeconds(5), AT),
                DatasetEvent.fileChanged("imagenet", "a.jpg", "etag2", AT),
                DatasetEvent.cacheFreed("imagenet", "train/", AT),
                new BlockFillRequest("imagenet", List.of(new BlockRef("train/a.jpg", "etag", 0)), true),
                BlockFillRequest.prefetch("imagenet", List.of(new BlockRef("train/b.jpg", "etag", 0))),
                new LocalReads(Map.of("0".repeat(32) + "-0", 3), 1, 4096),
                DatasetEvent.membership(DatasetEvent.Type.WORKER_LEFT, "worker-1", AT),
                new DeadLetter(Topics.WORKER_HEARTBEATS, 0, 42, "worker-1", "{not json", "Unexpected character"));

        for (Object value : values) {
            assertThat(roundTrip(value)).as(value.getClass().getSimpleName()).isEqualTo(value);
        }
    }

    @Test
    void theDatasetBodyOfTheDesignParses() throws Exception {
        DatasetSpec spec = MAPPER.readValue("""
                {"name":"imagenet","mounts":[{"uri":"s3://train/imagenet","options":{"endpoint":"http://127.0.0.1:9000",
                 "region":"us-east-1"},"credentialsRef":"minio"}],"blockSize":"16MiB","replicas":1}""", DatasetSpec.class);

        assertThat(spec.validate().withDefaults()).isEqualTo(
                new DatasetSpec("imagenet", List.of(MOUNT), "16MiB", 1, Map.of(), null, false));
        assertThat(spec.blockSizeBytes()).isEqualTo(16L << 20);
    }

    @Test
    void aPreloadRequestIsTheDataLoadBodyPlusARequestId() throws Exception {
        PreloadRequest request = MAPPER.readValue("""
                {"requestId":"pipeline-7","dataset":"imagenet","targets":[{"path":"/train","replicas":1}],"files":[],
                 "metadataOnly":false,"policy":"Once","schedule":null,"priority":0}""", PreloadRequest.class);

        assertThat(request.validate().spec()).isEqualTo(new DataLoadSpec("imagenet", List.of(new Target("train", 1)),
                List.of(), false, LoadPolicy.ONCE, null, 0));
        JsonNode written = MAPPER.readTree(MAPPER.writeValueAsString(request));
        assertThat(written.has("spec")).as("spec() is a view, not a field").isFalse();
        assertThat(written.get("requestId").asText()).isEqualTo("pipeline-7");
    }

    @Test
    void phasesAndEventTypesHaveTheirDocumentedNames() throws Exception {
        assertThat(MAPPER.writeValueAsString(DatasetPhase.BOUND)).isEqualTo("\"Bound\"");
        assertThat(MAPPER.writeValueAsString(DataLoadPhase.CANCELLED)).isEqualTo("\"Cancelled\"");
        assertThat(MAPPER.writeValueAsString(LoadPolicy.CRON)).isEqualTo("\"Cron\"");
        assertThat(MAPPER.writeValueAsString(Medium.MEM)).isEqualTo("\"MEM\"");
        assertThat(MAPPER.readTree(MAPPER.writeValueAsString(
                DatasetEvent.of(DatasetEvent.Type.CREATED, "d", AT))).get("at").asText())
                .isEqualTo("2026-11-23T08:30:00Z");
    }

    @Test
    void aDatasetShowsItsCredentialsRefAndNothingElseOfTheSecret() throws Exception {
        String json = MAPPER.writeValueAsString(new Dataset(
                new DatasetSpec("imagenet", List.of(MOUNT), null, null, null, null, null).withDefaults(),
                DatasetStatus.pending(AT)));

        assertThat(json).contains("\"credentialsRef\":\"minio\"").doesNotContainIgnoringCase("secret");
        assertThat(MAPPER.readTree(json).at("/status/phase").asText()).isEqualTo("Pending");
    }
}
