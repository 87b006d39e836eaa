package io.granary.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.dataload.Target;
import io.granary.devstack.S3ProxyServer;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Metrics;
import io.granary.devstack.testing.TempDirs;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The training-data scenario, end to end, against the packaged services started by {@code ./granary up} as
 * separate processes (a Kafka broker, the metadata-service, two cache workers, the preload-service, the
 * scheduler-hook, the gateway), with S3Proxy as the object store:
 * a dataset over a bucket of samples and a large model file; a pipeline preloads it over Kafka and follows the
 * progress to 100%; a reader lists and reads every object through the gateway with the AWS SDK, all from the
 * cache; a checkpoint is written through the gateway and read back from the cache; a POSIX reader reads
 * through an s3fs mount; a worker is killed in the middle of a read, which still completes; a dataset over HDFS is
 * loaded, read from the cache and written through.
 *
 * <p>Sizes are modest for CI ({@code -De2e.files=2000 -De2e.large-mib=96 -De2e.mount-checkpoint-mib=512});
 * {@code bench/run.sh} uses the full ones.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TrainingDataScenarioIT {

    private static final String BUCKET = "train";
    private static final String STORE_SECRET = "e2e-store";
    private static final String HDFS_BUCKET = "hdfs-train";
    /** The HDFS {@code ./granary up --hdfs} starts. */
    private static final URI HDFS = URI.create("hdfs://127.0.0.1:8020");
    private static final URI GATEWAY = URI.create("http://127.0.0.1:8080");
    private static final URI WORKER_1 = URI.create("http://127.0.0.1:8082");
    private static final URI WORKER_2 = URI.create("http://127.0.0.1:8086");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static String admin;
    private static Path secrets;

    private final int files = Integer.getInteger("e2e.files", 2000);
    private final int largeMib = Integer.getInteger("e2e.large-mib", 96);
    private final int checkpointMib = Integer.getInteger("e2e.checkpoint-mib", 32);
    /**
     * The checkpoint written through the native mount and read back with dd: twice the mount's heap (256 MiB), so a
     * client that held a file whole in memory would fail it.
     */
    private final int mountCheckpointMib = Integer.getInteger("e2e.mount-checkpoint-mib", 512);

    private Path work;
    private Path memDir;
    private S3ProxyServer store;
    private Launcher granary;
    private TrainingData data;
    private S3Client reader;

    @BeforeAll
    void upWithADatasetOverTheStore() throws Exception {
        work = Files.createTempDirectory("granary-e2e");
        memDir = Path.of("/dev/shm", "granary-e2e-" + UUID.randomUUID());
        store = S3ProxyServer.start(work.resolve("s3"), "e2e-access", "e2e-secret-0123456789");
        store.createBucket(BUCKET);
        try (S3Client direct = s3(store.endpoint(), store.accessKey(), store.secretKey())) {
            data = TrainingData.upload(direct, BUCKET, files, largeMib, 20261123L);
        }

        Path dataDir = Files.createDirectories(work.resolve("data"));
        Path secret = Files.createDirectories(dataDir.resolve(".granary/secrets").resolve(STORE_SECRET));
        Files.writeString(secret.resolve("accessKey"), store.accessKey());
        Files.writeString(secret.resolve("secretKey"), store.secretKey());
        granary = new Launcher(Path.of(System.getProperty("granary.root", "..")).toAbsolutePath().normalize(), work,
                Map.of("GRANARY_MEM_DIR", memDir.toString(), "GRANARY_READ_MEMBERSHIP_REFRESH", "1s"));
        granary.up(dataDir, 2);

        Properties keys = new Properties();
        try (InputStream in = Files.newInputStream(dataDir.resolve(".granary/s3-keys"))) {
            keys.load(in);
        }
        reader = s3(GATEWAY, keys.getProperty("AWS_ACCESS_KEY_ID"), keys.getProperty("AWS_SECRET_ACCESS_KEY"));
        // The admin's bearer token, as ./granary env exports it (GRANARY_TOKEN).
        secrets = dataDir.resolve(".granary/secrets");
        admin = "Bearer " + Files.readString(secrets.resolve("gateway/token")).strip();

        await().atMost(Duration.ofSeconds(60)).until(() -> get("/api/v1/workers").findValues("live").stream()
                .filter(JsonNode::asBoolean).count() == 2);
        Datasets.createBound(GATEWAY, admin, Datasets.spec(BUCKET, "4MiB",
                Datasets.s3Mount(BUCKET, store.endpoint().toString(), STORE_SECRET)));
        assertThat(get("/api/v1/datasets/" + BUCKET).path("status").path("fileCount").asLong()).isEqualTo(files + 1);
    }

    @AfterAll
    void down() throws IOException {
        if (reader != null) {
            reader.close();
        }
        if (granary != null) {
            granary.close();
        }
        if (store != null) {
            store.close();
        }
        TempDirs.deleteQuietly(memDir);
        TempDirs.deleteQuietly(work);
    }

    @Test
    @Order(1)
    void aPipelinePreloadsTheDatasetOverKafkaAndSeesItReach100Percent() throws Exception {
        PreloadRequest request = new PreloadRequest("e2e-epoch-0", BUCKET, List.of(new Target("/", 1)), List.of(),
                false, LoadPolicy.ONCE, null, 0);
        List<DataLoadStatus> progress = new PreloadPipeline("127.0.0.1:9092").preload(request, Duration.ofMinutes(5));

        DataLoadStatus last = progress.get(progress.size() - 1);
        assertThat(last.phase()).as("final status %s", last).isEqualTo(DataLoadPhase.COMPLETE);
        assertThat(last.errors()).isEmpty();
        assertThat(last.filesDone()).isEqualTo(last.filesTotal()).isEqualTo(files + 1);
        assertThat(last.bytesDone()).isEqualTo(last.bytesTotal()).isEqualTo(data.totalBytes());
        assertThat(progress).extracting(DataLoadStatus::bytesDone).isSorted();
        assertThat(Metrics.sum(Metrics.FETCHED_FROM_STORE, List.of(WORKER_1, WORKER_2)))
                .as("the workers read it all from the object store").isGreaterThanOrEqualTo((double) data.totalBytes());
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(get("/api/v1/datasets/" + BUCKET).path("status").path("cachedPercentage").asDouble())
                        .as("the metadata-service counts it all cached").isEqualTo(100.0));
    }

    @Test
    @Order(2)
    void aReaderListsAndReadsEveryObjectFromTheCacheWithTheAwsSdk() throws Exception {
        Map<String, Double> before = underStoreReads();
        double served = Metrics.sum("granary_gateway_served_bytes_total", GATEWAY);

        List<String> listed = new ArrayList<>();
        reader.listObjectsV2Paginator(request -> request.bucket(BUCKET).maxKeys(500)).contents()
                .forEach(object -> listed.add(object.key()));
        assertThat(listed).containsExactlyElementsOf(new TreeSet<>(data.sha256().keySet()));

        ExecutorService readers = Executors.newFixedThreadPool(8);
        try {
            List<Future<String>> reads = new ArrayList<>();
            for (String key : listed) {
                reads.add(readers.submit(() -> TrainingData.sha256(reader.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asByteArray())));
            }
            for (int i = 0; i < listed.size(); i++) {
                assertThat(reads.get(i).get()).as(listed.get(i)).isEqualTo(data.sha256().get(listed.get(i)));
            }
        } finally {
            readers.shutdown();
        }

        assertThat(underStoreReads()).as("no read reached the object store during the warm pass").isEqualTo(before);
        assertThat(Metrics.sum("granary_gateway_served_bytes_total", GATEWAY) - served).isEqualTo((double) data.totalBytes());
    }

    @Test
    @Order(3)
    void aCheckpointWrittenThroughTheGatewayIsReadBackFromTheCache() {
        byte[] checkpoint = new byte[checkpointMib << 20];
        new Random(1000).nextBytes(checkpoint);
        String key = "checkpoints/step-1000.pt";
        reader.putObject(request -> request.bucket(BUCKET).key(key), RequestBody.fromBytes(checkpoint));

        Map<String, Double> before = underStoreReads();
        assertThat(TrainingData.sha256(reader.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asByteArray()))
                .isEqualTo(TrainingData.sha256(checkpoint));
        assertThat(underStoreReads()).as("the restarted job's load came from the cache").isEqualTo(before);
        try (S3Client direct = s3(store.endpoint(), store.accessKey(), store.secretKey())) {
            assertThat(TrainingData.sha256(direct.getObjectAsBytes(r -> r.bucket(BUCKET).key(key)).asByteArray()))
                    .as("written through to the object store").isEqualTo(TrainingData.sha256(checkpoint));
        }
    }

    @Test
    @Order(4)
    void aPosixReaderReadsThroughAnS3fsMount() throws Exception {
        boolean required = "required".equals(System.getenv("GRANARY_E2E_POSIX"));
        if (!S3fsMount.available()) {
            assertThat(required).as("GRANARY_E2E_POSIX=required but s3fs or /dev/fuse is missing").isFalse();
            Assumptions.abort("s3fs-fuse is not installed (apt-get install s3fs): POSIX reads not checked");
        }
        Properties keys = new Properties();
        try (InputStream in = Files.newInputStream(work.resolve("data/.granary/s3-keys"))) {
            keys.load(in);
        }
        Map<String, Double> before = underStoreReads();
        try (S3fsMount mount = S3fsMount.mount(BUCKET, GATEWAY.toString(), keys.getProperty("AWS_ACCESS_KEY_ID"),
                keys.getProperty("AWS_SECRET_ACCESS_KEY"), work)) {
            Path shard = mount.root().resolve("train/shard-03");
            List<String> expected = data.sha256().keySet().stream().filter(k -> k.startsWith("train/shard-03/"))
                    .map(k -> k.substring("train/shard-03/".length())).toList();
            try (Stream<Path> names = Files.list(shard)) {
                assertThat(names.map(p -> p.getFileName().toString()).sorted()).containsExactlyElementsOf(expected);
            }
            for (String name : expected) {
                assertThat(TrainingData.sha256(Files.readAllBytes(shard.resolve(name)))).as(name)
                        .isEqualTo(data.sha256().get("train/shard-03/" + name));
            }
            Path large = mount.root().resolve(TrainingData.LARGE_KEY);
            assertThat(Files.size(large)).isEqualTo(data.size(TrainingData.LARGE_KEY));
            assertThat(TrainingData.sha256(Files.readAllBytes(large))).isEqualTo(data.sha256().get(TrainingData.LARGE_KEY));
        }
        assertThat(underStoreReads()).as("POSIX reads came from the cache").isEqualTo(before);
    }

    @Test
    @Order(7)
    void aWorkerKilledDuringAReadSlowsItButNeverFailsIt() throws Exception {
        // Free the large file's cache, as an operator does, so its read goes through the workers (a warm block
        // is read from its file): every worker drops exactly that file's blocks.
        long held = cachedBytes(WORKER_1) + cachedBytes(WORKER_2);
        HttpResponse<String> freed = HTTP.send(HttpRequest.newBuilder(
                        GATEWAY.resolve("/api/v1/datasets/" + BUCKET + "/cache?path=models")).header("Authorization", admin).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(freed.statusCode()).as(freed.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(cachedBytes(WORKER_1)
                + cachedBytes(WORKER_2)).isEqualTo(held - data.size(TrainingData.LARGE_KEY)));
        double readAround = readAroundTheCache();

        byte[] large;
        try (ResponseInputStream<GetObjectResponse> in =
                     reader.getObject(r -> r.bucket(BUCKET).key(TrainingData.LARGE_KEY))) {
            large = readKillingMidway(in, "block-service-2");
        }
        assertThat(TrainingData.sha256(large)).isEqualTo(data.sha256().get(TrainingData.LARGE_KEY));
        assertThat(readAroundTheCache()).as("the dead worker's blocks were read around it").isGreaterThan(readAround);

        // And reading goes on with one worker.
        S3Object sample = reader.listObjectsV2(r -> r.bucket(BUCKET).prefix("train/shard-07/")).contents().get(0);
        assertThat(TrainingData.sha256(reader.getObjectAsBytes(r -> r.bucket(BUCKET).key(sample.key())).asByteArray()))
                .isEqualTo(data.sha256().get(sample.key()));
    }

    /**
     * The same training job through the native mount ({@code ./granary mount}), after step 5 left one worker: the
     * tree as the dataset lists it, every byte by plain POSIX reads and by Python, a 512 MiB checkpoint written
     * through the mount and read back with dd after its cache was freed and the client was SIGKILLed (and
     * remounted), the last worker killed in the middle of a read, and the refusals a user meets.
     */
    @Test
    @Order(8)
    void aTrainingJobReadsAndWritesThroughTheNativeMount() throws Exception {
        Path mount = Files.createDirectories(work.resolve("native"));
        granary.mount(BUCKET, mount);

        Set<String> expected = new TreeSet<>(data.sha256().keySet());
        expected.add("checkpoints/step-1000.pt");  // written through the gateway in step 3
        try (Stream<Path> walk = Files.walk(mount)) {
            Set<String> listed = walk.filter(Files::isRegularFile).map(p -> mount.relativize(p).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(listed).as("ls -R of the mount").isEqualTo(expected);
        }
        for (Map.Entry<String, String> file : data.sha256().entrySet()) {
            assertThat(TrainingData.sha256(Files.readAllBytes(mount.resolve(file.getKey())))).as(file.getKey())
                    .isEqualTo(file.getValue());
        }
        String sample = data.sha256().keySet().stream().filter(k -> k.startsWith("train/")).findFirst()
                .orElseThrow();
        long hitsBefore = settledHits();
        // The reads above left the file in the kernel's page cache (auto_cache keeps it while it is unchanged):
        // Python drops it first, so its read reaches the mount.
        assertThat(shell("python3", "-c", "import hashlib,os,sys; f = open(sys.argv[1], 'rb'); "
                + "os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED); "
                + "print(hashlib.sha256(f.read()).hexdigest())",
                mount.resolve(sample).toString())).as("Python's open().read()").isEqualTo(data.sha256().get(sample));
        // Read again, from the worker's files on this node: the mount reports it, so the worker's policies see it.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(hits()).as("the workers' hits, with "
                + "the mount's short-circuit reads reported").isGreaterThan(hitsBefore));

        // A checkpoint of 512 MiB written through the mount: in the object store once close returns.
        Path local = work.resolve("checkpoint.pt");
        try (OutputStream out = Files.newOutputStream(local)) {
            Random random = new Random(42);
            byte[] chunk = new byte[1 << 20];
            for (int i = 0; i < mountCheckpointMib; i++) {
                random.nextBytes(chunk);
                out.write(chunk);
            }
        }
        String checkpointSha = shell("sha256sum", local.toString()).split(" ")[0];
        Files.createDirectories(mount.resolve("checkpoints/native"));
        Files.copy(local, mount.resolve("checkpoints/native/epoch-3.pt"));
        Files.delete(local);
        try (S3Client direct = s3(store.endpoint(), store.accessKey(), store.secretKey());
             InputStream in = direct.getObject(r -> r.bucket(BUCKET).key("checkpoints/native/epoch-3.pt"))) {
            assertThat(TrainingData.sha256(in)).as("written through to the object store").isEqualTo(checkpointSha);
        }

        // Its cache freed, and the client killed: the mount comes back, and dd reads the checkpoint again.
        HttpResponse<String> freed = HTTP.send(HttpRequest.newBuilder(GATEWAY.resolve("/api/v1/datasets/" + BUCKET
                + "/cache?path=checkpoints/native")).header("Authorization", admin).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(freed.statusCode()).as(freed.body()).isEqualTo(202);
        ProcessHandle client = ProcessHandle.allProcesses().filter(p -> p.info().commandLine()
                .map(line -> line.contains("fuse-client") && line.contains(mount.toString())).orElse(false))
                .findFirst().orElseThrow();
        client.destroyForcibly();
        client.onExit().get();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> Files.readAllBytes(mount.resolve(sample)).length == data.size(sample));
        assertThat(shell("bash", "-c", "dd if='" + mount.resolve("checkpoints/native/epoch-3.pt")
                + "' bs=1M status=none | sha256sum").split(" ")[0]).as("dd bs=1M after a remount")
                .isEqualTo(checkpointSha);

        // The last worker killed in the middle of a read through the mount: slower, still every byte.
        HTTP.send(HttpRequest.newBuilder(GATEWAY.resolve("/api/v1/datasets/" + BUCKET + "/cache?path=models"))
                .header("Authorization", admin).DELETE().build(), HttpResponse.BodyHandlers.discarding());
        byte[] large;
        try (InputStream in = Files.newInputStream(mount.resolve(TrainingData.LARGE_KEY))) {
            large = readKillingMidway(in, "block-service");
        }
        assertThat(TrainingData.sha256(large)).isEqualTo(data.sha256().get(TrainingData.LARGE_KEY));

        // What cannot be mounted is said in one line, with a non-zero exit.
        Path other = Files.createDirectories(work.resolve("other"));
        Launcher.Result unknown = granary.granary("mount", "no-such-dataset", other.toString());
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.output()).isEqualTo("granary: no dataset 'no-such-dataset' "
                + "(GET /api/v1/datasets lists them)");
        assertThat(granary.granary("mount", BUCKET, work.resolve("missing").toString()).output())
                .endsWith("is not a directory");
        assertThat(granary.granary("mount", BUCKET, mount.toString()).output()).contains("is busy");
        assertThat(granary.granary("unmount", mount.toString()).exit()).isZero();
        assertThat(Files.readAllLines(Path.of("/proc/self/mounts")))
                .noneMatch(line -> line.contains(mount.toString()));
    }

    /** Reads the first 4 MiB, SIGKILLs the worker, then reads the rest: what a reader got across the crash. */
    private byte[] readKillingMidway(InputStream in, String worker) throws Exception {
        byte[] head = in.readNBytes(4 << 20);
        ProcessHandle process = ProcessHandle.of(granary.pid(worker)).orElseThrow();
        process.destroyForcibly();
        process.onExit().get();
        byte[] rest = in.readAllBytes();
        byte[] all = new byte[head.length + rest.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(rest, 0, all, head.length, rest.length);
        return all;
    }

    private static String shell(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes()).strip();
        assertThat(process.waitFor()).as(String.join(" ", command) + ": " + output).isZero();
        return output;
    }

    /**
     * Blocks read around a worker: by the gateway from the object store (a fallback), or, once the gateway suspects
     * the worker, by the other worker, which its blocks fall to, from the store.
     */
    private double readAroundTheCache() {
        return Metrics.sum("granary_gateway_fallbacks_total", GATEWAY)
                + Metrics.sum(Metrics.FETCHED_FROM_STORE, WORKER_1);
    }

    /** Reads of the object store: by each worker (fills), and by the gateway itself (fallbacks, its own reads). */
    @Test
    @Order(9)
    void aDatasetOverHdfsIsLoadedReadFromTheCacheAndWrittenThrough() throws Exception {
        // A data team's pipeline wrote the samples with the Hadoop client; Granary reads them as they are.
        Map<String, String> sha256 = new TreeMap<>();
        Configuration conf = new Configuration();
        conf.setInt("dfs.replication", 1);
        // Ask after 20 ms, not Hadoop's 400, whether a closed file's last block has reached the NameNode.
        conf.setInt("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", 20);
        try (FileSystem hdfs = FileSystem.newInstance(HDFS, conf)) {
            Random random = new Random(20261128L);
            for (int i = 0; i < 300; i++) {
                byte[] sample = new byte[4096 + random.nextInt(60_000)];
                random.nextBytes(sample);
                String key = "samples/%04d.bin".formatted(i);
                try (FSDataOutputStream out = hdfs.create(new org.apache.hadoop.fs.Path("/e2e/hdfs-train/" + key))) {
                    out.write(sample);
                }
                sha256.put(key, TrainingData.sha256(sample));
            }
        }
        Datasets.createBound(GATEWAY, admin, Datasets.spec(HDFS_BUCKET, "1MiB", Datasets.hdfsMount(HDFS + "/e2e/hdfs-train")));
        assertThat(get("/api/v1/datasets/" + HDFS_BUCKET).path("status").path("fileCount").asLong()).isEqualTo(300);

        PreloadRequest request = new PreloadRequest("e2e-hdfs", HDFS_BUCKET, List.of(new Target("/", 1)), List.of(),
                false, LoadPolicy.ONCE, null, 0);
        List<DataLoadStatus> progress = new PreloadPipeline("127.0.0.1:9092").preload(request, Duration.ofMinutes(3));
        assertThat(progress.get(progress.size() - 1).phase()).isEqualTo(DataLoadPhase.COMPLETE);

        Map<String, Double> before = underStoreReads();
        List<String> listed = new ArrayList<>();
        reader.listObjectsV2Paginator(r -> r.bucket(HDFS_BUCKET).maxKeys(100)).contents()
                .forEach(object -> listed.add(object.key()));
        assertThat(listed).containsExactlyElementsOf(sha256.keySet());
        for (String key : listed) {
            assertThat(TrainingData.sha256(reader.getObjectAsBytes(r -> r.bucket(HDFS_BUCKET).key(key)).asByteArray()))
                    .as(key).isEqualTo(sha256.get(key));
        }
        assertThat(underStoreReads()).as("every read of the loaded dataset came from the cache").isEqualTo(before);

        byte[] checkpoint = new byte[24 << 20];
        new Random(9).nextBytes(checkpoint);
        reader.putObject(r -> r.bucket(HDFS_BUCKET).key("checkpoints/step-9.pt"), RequestBody.fromBytes(checkpoint));
        try (FileSystem hdfs = FileSystem.newInstance(HDFS, conf);
             InputStream in = hdfs.open(new org.apache.hadoop.fs.Path("/e2e/hdfs-train/checkpoints/step-9.pt"))) {
            assertThat(TrainingData.sha256(in.readAllBytes())).as("written through to HDFS")
                    .isEqualTo(TrainingData.sha256(checkpoint));
        }
        assertThat(TrainingData.sha256(reader.getObjectAsBytes(r -> r.bucket(HDFS_BUCKET).key("checkpoints/step-9.pt"))
                .asByteArray())).isEqualTo(TrainingData.sha256(checkpoint));
    }

    /**
     * What reached the object store to serve a read. The gateway's requests by operation, but for its probes: a
     * dataset's first read there makes its store's client ready in the background, which serves no read.
     */
    private Map<String, Double> underStoreReads() {
        Map<String, Double> reads = new TreeMap<>(Map.of(
                "workers: " + Metrics.FETCHED_FROM_STORE,
                Metrics.sum(Metrics.FETCHED_FROM_STORE, live(WORKER_1, WORKER_2)),
                "gateway: granary_gateway_fallbacks_total", Metrics.sum("granary_gateway_fallbacks_total", GATEWAY)));
        for (String op : List.of("stat", "list", "read")) {
            String series = "granary_understore_requests_total{op=\"" + op + "\"}";
            reads.put("gateway: " + series, Metrics.sum(series, GATEWAY));
        }
        return reads;
    }

    private List<URI> live(URI... workers) {
        return Stream.of(workers).filter(worker -> {
            try {
                return HTTP.send(HttpRequest.newBuilder(worker.resolve("/q/health/live")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }).toList();
    }

    @Test
    @Order(5)
    void withoutCredentialsNothingIsOpenAndSignedCallsAreEverywhere() throws Exception {
        for (URI api : List.of(GATEWAY.resolve("/api/v1/datasets"), URI.create("http://127.0.0.1:8081/api/v1/datasets"),
                URI.create("http://127.0.0.1:8084/api/v1/dataloads"), WORKER_1.resolve("/blocks/stats"))) {
            HttpResponse<String> anonymous = HTTP.send(HttpRequest.newBuilder(api).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).as("GET " + api).isEqualTo(401);
            assertThat(anonymous.body()).as("GET " + api).contains("\"status\":401").doesNotContain(BUCKET);
        }
        // Signed with the admin's S3 keys, as any AWS-signing client signs: every service's own port takes it.
        Properties keys = new Properties();
        try (InputStream in = Files.newInputStream(work.resolve("data/.granary/s3-keys"))) {
            keys.load(in);
        }
        for (URI api : List.of(GATEWAY.resolve("/api/v1/datasets"), URI.create("http://127.0.0.1:8081/api/v1/datasets"),
                URI.create("http://127.0.0.1:8084/api/v1/dataloads"), WORKER_1.resolve("/blocks/stats"))) {
            assertThat(AccessMatrix.signedGet(api, keys.getProperty("AWS_ACCESS_KEY_ID"),
                    keys.getProperty("AWS_SECRET_ACCESS_KEY"))).as("signed GET " + api).isEqualTo(200);
            assertThat(AccessMatrix.signedGet(api, keys.getProperty("AWS_ACCESS_KEY_ID"), "not-the-secret"))
                    .as("GET " + api + " signed with a wrong secret").isEqualTo(401);
        }
        // The cache poisoning of old: bytes PUT to a worker by anyone but Granary's services are refused, the
        // admin's token included.
        for (String authorization : List.of("", admin)) {
            HttpRequest.Builder put = HttpRequest.newBuilder(WORKER_1.resolve("/blocks/" + BUCKET + "/0?path="
                    + TrainingData.LARGE_KEY + "&etag=x")).PUT(HttpRequest.BodyPublishers.ofString("poison"));
            if (!authorization.isEmpty()) {
                put.header("Authorization", authorization);
            }
            int status = HTTP.send(put.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            assertThat(status).as("PUT a block " + (authorization.isEmpty() ? "anonymously" : "as the admin"))
                    .isEqualTo(authorization.isEmpty() ? 401 : 403);
        }
    }

    @Test
    @Order(6)
    void everyOperationOfEveryServiceGivesEachCallerExactlyWhatItsRoleAllows() throws Exception {
        // Three more identities, added as an operator adds them: the services read them again, no restart.
        List<AccessMatrix.Caller> callers = new ArrayList<>(List.of(
                new AccessMatrix.Caller("anonymous", null, null, Set.of()),
                new AccessMatrix.Caller("a wrong key", "not-a-token-of-anyone", null, Set.of()),
                new AccessMatrix.Caller("admin", admin.substring("Bearer ".length()), AccessMatrix.Role.ADMIN,
                        Set.of())));
        StringBuilder identities = new StringBuilder("{\"identities\": [\n"
                + "  {\"name\": \"admin\", \"role\": \"admin\", \"credentialsRef\": \"gateway\"}");
        for (String[] identity : new String[][] {{"reader", "reader", ""}, {"writer", "writer", ""},
                {"other-admin", "admin", "other"}}) {
            String token = UUID.randomUUID().toString();
            Path secret = Files.createDirectories(secrets.resolve("e2e-" + identity[0]));
            Files.writeString(secret.resolve("token"), token);
            identities.append(",\n  {\"name\": \"").append(identity[0]).append("\", \"role\": \"")
                    .append(identity[1]).append("\", \"credentialsRef\": \"e2e-").append(identity[0]).append('"')
                    .append(identity[2].isEmpty() ? "" : ", \"datasets\": [\"" + identity[2] + "\"]").append('}');
            callers.add(new AccessMatrix.Caller(identity[0], token,
                    AccessMatrix.Role.valueOf(identity[1].toUpperCase(Locale.ROOT)),
                    identity[2].isEmpty() ? Set.of() : Set.of(identity[2])));
        }
        Files.writeString(secrets.resolve("granary-access/identities.json"), identities.append("\n]}\n"));
        String lastToken = callers.get(callers.size() - 1).token();
        for (URI service : List.of(GATEWAY, URI.create("http://127.0.0.1:8081"), URI.create("http://127.0.0.1:8084"),
                WORKER_1)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> HTTP.send(HttpRequest.newBuilder(
                            service.resolve("/api/v1/datasets/other")).header("Authorization", "Bearer " + lastToken)
                    .build(), HttpResponse.BodyHandlers.discarding()).statusCode() != 401);
        }

        Set<String> metadata = AccessMatrix.operations(URI.create("http://127.0.0.1:8081"));
        Set<String> preload = AccessMatrix.operations(URI.create("http://127.0.0.1:8084"));
        Set<String> worker = new TreeSet<>(AccessMatrix.operations(WORKER_1));
        worker.addAll(AccessMatrix.OUTSIDE_OPENAPI);
        assertThat(metadata).contains("POST /api/v1/datasets", "DELETE /api/v1/datasets/{name}/cache");
        assertThat(preload).contains("POST /api/v1/dataloads");
        assertThat(worker).contains("GET /blocks/stats", "PUT /blocks/{dataset}/{index}");
        Set<String> management = new TreeSet<>(metadata);
        management.addAll(preload);
        management.addAll(AccessMatrix.operations(GATEWAY));
        List<String> wrong = new ArrayList<>();
        wrong.addAll(AccessMatrix.mismatches(URI.create("http://127.0.0.1:8081"), metadata, callers));
        wrong.addAll(AccessMatrix.mismatches(URI.create("http://127.0.0.1:8084"), preload, callers));
        wrong.addAll(AccessMatrix.mismatches(WORKER_1, worker, callers));
        wrong.addAll(AccessMatrix.mismatches(GATEWAY, management, callers));  // the same calls, through the gateway
        assertThat(wrong).isEmpty();
    }

    /** The bytes of the dataset a worker holds, as it counts them itself. */
    private static long cachedBytes(URI worker) throws IOException, InterruptedException {
        return workerStats(worker).path("cachedBytes").path(BUCKET).asLong();
    }

    /**
     * The workers' hits once the reads reported to them have all landed (the mounts report every 100 ms): the same
     * count twice, half a second apart.
     */
    private long settledHits() {
        long[] last = {-1};
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
            long hits = hits();
            boolean settled = hits == last[0];
            last[0] = hits;
            return settled ? hits : -1L;
        }, hits -> hits >= 0);
    }

    /** Both workers' hits: the one step 7 killed is back (the supervisor restarted it) and owns its blocks again. */
    private long hits() throws IOException, InterruptedException {
        long hits = 0;
        for (URI worker : live(WORKER_1, WORKER_2)) {
            hits += workerStats(worker).path("hits").asLong();
        }
        return hits;
    }

    /** What a worker holds and what it served since it started ({@code GET /blocks/stats}). */
    private static JsonNode workerStats(URI worker) throws IOException, InterruptedException {
        HttpResponse<String> stats = HTTP.send(HttpRequest.newBuilder(worker.resolve("/blocks/stats"))
                        .header("Authorization", admin).build(),
                HttpResponse.BodyHandlers.ofString());
        return PreloadPipeline.JSON.readTree(stats.body());
    }

    private static JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(GATEWAY.resolve(path))
                        .header("Authorization", admin).build(),
                HttpResponse.BodyHandlers.ofString());
        return PreloadPipeline.JSON.readTree(response.body());
    }

    private static S3Client s3(URI endpoint, String accessKey, String secretKey) {
        return S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofMinutes(2)).build())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .endpointOverride(endpoint)
                .forcePathStyle(true)
                .build();
    }
}
