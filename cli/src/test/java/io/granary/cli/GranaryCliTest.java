package io.granary.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.cli.api.ManagementApi;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.StackResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The CLI as an operator runs it, against real services: the metadata-service, a cache worker, the
 * preload-service and the gateway as packaged processes over a real Kafka broker and a local under-store. Every
 * command goes through the gateway's management API with a real bearer token.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GranaryCliTest {

    private static final int SAMPLES = 24;
    private static final int LARGE = 24 * 1024 * 1024;

    private final StackResource stack = new StackResource();
    private final ObjectMapper json = new ObjectMapper();
    private Map<String, String> env;
    private Path root;

    /** What one command printed and answered. */
    record Run(int exit, String out, String err) {
    }

    @BeforeAll
    void startTheSystem() throws IOException {
        stack.init(Map.of("services", "metadata-service,block-service,preload-service,gateway"));
        Map<String, String> config = stack.start();
        root = Path.of(config.get("granary.allowed-roots"));
        env = Map.of("GRANARY_ENDPOINT", config.get("test.gateway-url"), "GRANARY_TOKEN", Identities.ADMIN.token());
        Random random = new Random(7);
        Path photos = Files.createDirectories(root.resolve("photos/train"));
        for (int i = 0; i < SAMPLES; i++) {
            byte[] sample = new byte[4096 + random.nextInt(60_000)];
            random.nextBytes(sample);
            Files.write(photos.resolve(String.format("img-%03d.jpg", i)), sample);
        }
        byte[] large = new byte[LARGE];
        random.nextBytes(large);
        Files.write(root.resolve("photos/model.bin"), large);
    }

    @AfterAll
    void stopTheSystem() {
        stack.stop();
    }

    @Test
    @Order(1)
    void aDatasetIsCreatedAndListedAsATableJsonAndYaml() throws IOException {
        Run created = granary("dataset", "create", "photos", "--mount", root.resolve("photos").toUri().toString(),
                "--wait");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).contains("dataset photos created: Bound, " + (SAMPLES + 1) + " files");

        Run table = granary("dataset", "ls");
        assertThat(table.exit()).isZero();
        assertThat(table.out().lines().findFirst().orElseThrow()).startsWith("NAME").contains("PHASE", "CACHED");
        assertThat(table.out()).containsPattern("photos\\s+Bound\\s+" + (SAMPLES + 1) + "\\s");
        assertThat(table.out().lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(80));

        JsonNode datasets = json.readTree(granary("dataset", "ls", "-o", "json").out());
        assertThat(datasets.isArray()).isTrue();
        JsonNode photos = datasets.get(0);
        assertThat(photos.at("/spec/name").asText()).isEqualTo("photos");
        assertThat(photos.at("/status/phase").asText()).isEqualTo("Bound");
        assertThat(photos.at("/status/fileCount").asLong()).isEqualTo(SAMPLES + 1);

        assertThat(granary("dataset", "get", "photos", "-o", "yaml").out()).contains("name: photos", "phase: Bound");
        assertThat(granary("ls", "photos").out()).containsPattern("train/").containsPattern("model\\.bin\\s+24\\.0 MiB\\s+-");
    }

    @Test
    @Order(2)
    void aFollowedLoadDrawsItsProgressTo100PercentAndTheFilesShowAsCached() throws IOException {
        Run load = granary("load", "photos", "--follow");

        assertThat(load.exit()).as(load.err()).isZero();
        String last = load.out().strip().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(last).contains("[####################] 100%", (SAMPLES + 1) + "/" + (SAMPLES + 1) + " files",
                "Complete");
        // The workers' block events reach the metadata-service a moment after the load ends.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                json.readTree(granary("dataset", "get", "photos", "-o", "json").out()).at("/status/cachedPercentage")
                        .asDouble()).isEqualTo(100.0));
        Run listing = granary("ls", "photos/train/");
        assertThat(listing.out().lines().skip(1)).hasSize(SAMPLES)
                .allSatisfy(line -> assertThat(line).containsPattern("img-\\d{3}\\.jpg\\s+\\S+ \\S+\\s+100%"));
        JsonNode files = json.readTree(granary("ls", "photos/model.bin", "-o", "json").out());
        assertThat(files.get(0).get("cachedBytes").asLong()).isEqualTo(LARGE);
    }

    @Test
    @Order(3)
    void aLoadThatFailsExits6AndNamesTheFilesItCouldNotLoad() throws IOException {
        Path gone = Files.createDirectories(root.resolve("gone"));
        Files.writeString(gone.resolve("kept.txt"), "kept");
        Files.writeString(gone.resolve("lost.txt"), "lost");
        assertThat(granary("dataset", "create", "gone", "--mount", gone.toUri().toString(), "--wait").exit()).isZero();
        Files.delete(gone.resolve("lost.txt"));  // listed, then gone from the store

        Run load = granary("load", "gone", "--follow");

        assertThat(load.exit()).isEqualTo(Exit.LOAD_FAILED);
        assertThat(load.err()).contains("granary: DataLoad", "failed:", "lost.txt");
    }

    @Test
    @Order(4)
    void aCancelledLoadExits7WhenFollowed() {
        // Scheduled once a year: it waits, so the cancel always finds it not yet run.
        Run started = granary("load", "photos", "train/", "--cron", "0 0 1 1 *");
        assertThat(started.exit()).as(started.err()).isZero();
        String id = loadId(started.out());
        assertThat(granary("load", "ls", "--dataset", "photos").out()).contains(id);

        Run cancelled = granary("load", "cancel", id);
        assertThat(cancelled.exit()).as(cancelled.err()).isZero();
        assertThat(cancelled.out()).contains("DataLoad " + id + ": Cancelled");

        Run followed = granary("load", "get", id, "--follow");
        assertThat(followed.exit()).isEqualTo(Exit.LOAD_CANCELLED);
        assertThat(followed.err()).contains("was cancelled");
    }

    @Test
    @Order(5)
    void freeingTheCacheDropsTheDatasetTo0Percent() {
        Run free = granary("cache", "free", "photos");
        assertThat(free.exit()).as(free.err()).isZero();

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                json.readTree(granary("dataset", "get", "photos", "-o", "json").out()).at("/status/cachedPercentage")
                        .asDouble()).isZero());
        assertThat(granary("ls", "photos").out()).containsPattern("model\\.bin\\s+24\\.0 MiB\\s+-");
    }

    @Test
    @Order(6)
    void workersAndTopShowTheCacheAtWork() throws IOException {
        JsonNode workers = json.readTree(granary("workers", "-o", "json").out());
        assertThat(workers.get(0).get("live").asBoolean()).isTrue();
        assertThat(workers.get(0).get("startedAt").asText()).isNotEmpty();
        assertThat(workers.get(0).get("levels").get(0).get("quotaBytes").asLong()).isPositive();
        assertThat(granary("workers").out()).contains("live", "MEM");

        Run top = granary("top", "--count", "2", "--interval", "0.5");
        assertThat(top.exit()).isZero();
        assertThat(top.out()).contains("DATASET", "READ/S", "photos", "WORKER", "LEVELS (USED/QUOTA)");
    }

    @Test
    @Order(7)
    void badInputIsOneClearLineAndAnExitCode() {
        assertOneLine(granary("dataset", "get", "nosuch"), Exit.NOT_FOUND, "nosuch");
        assertOneLine(granary("ls", "nosuch/dir"), Exit.NOT_FOUND, "nosuch");
        assertOneLine(granary("ls", "photos/no/such/file"), Exit.NOT_FOUND, "photos/no/such/file");
        assertOneLine(granary("load", "nosuch"), Exit.REFUSED, "dataset: no dataset 'nosuch'");
        assertOneLine(granary("dataset", "create", "bad", "--mount", "ftp://store/bucket"), Exit.REFUSED,
                "mounts[0].uri: 'ftp://store/bucket' must be");
        assertOneLine(granary("dataset", "create", "Bad_Name", "--mount", "file:///tmp"), Exit.REFUSED, "name:");
        assertOneLine(granary("dataset", "create", "greedy", "--mount", "file:///tmp", "--cache-share", "1.5"),
                Exit.REFUSED, "cacheShare: must be more than 0 and at most 1");
        assertOneLine(granary("load", "photos", "--cron", "every day"), Exit.REFUSED, "schedule:");
        assertOneLine(granary("load", "get", "load-none"), Exit.NOT_FOUND, "load-none");
        assertOneLine(granary("dataset", "ls", "--colour"), Exit.USAGE, "Unknown option: '--colour'");
        assertOneLine(granary("dataset", "ls", "-o", "xml"), Exit.USAGE, "xml");

        assertOneLine(run(Map.of("GRANARY_ENDPOINT", env.get("GRANARY_ENDPOINT")), "dataset", "ls"), Exit.DENIED,
                "no credentials: set GRANARY_TOKEN");
        assertOneLine(run(Map.of("GRANARY_ENDPOINT", env.get("GRANARY_ENDPOINT"), "GRANARY_TOKEN",
                Identities.READER.token()), "cache", "free", "photos"), Exit.DENIED, "not allowed");
        assertOneLine(run(Map.of("GRANARY_ENDPOINT", "http://127.0.0.1:1"), "dataset", "ls"), Exit.UNAVAILABLE,
                "cannot reach the gateway at http://127.0.0.1:1");
    }

    @Test
    @Order(8)
    void pathsWithSpacesPercentSignsAndUnicodeAreListedLoadedAndFreed() throws IOException {
        Path odd = Files.createDirectories(root.resolve("odd/my dir"));
        Files.writeString(odd.resolve("50% off \u00fc.txt"), "sale");
        assertThat(granary("dataset", "create", "odd", "--mount", odd.getParent().toUri().toString(), "--wait").exit())
                .isZero();

        assertThat(granary("ls", "odd").out()).contains("my dir/");
        assertThat(granary("ls", "odd/my dir/").out()).containsPattern("50% off \u00fc\\.txt\\s+4 B\\s+-");
        Run load = granary("load", "odd", "my dir/50% off \u00fc.txt", "--follow");
        assertThat(load.exit()).as(load.err()).isZero();
        assertThat(granary("ls", "odd/my dir/50% off \u00fc.txt").out()).containsPattern("4 B\\s+100%");
        assertThat(granary("cache", "free", "odd/my dir/50% off \u00fc.txt").exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(granary("ls", "odd/my dir/").out()).containsPattern("4 B\\s+-"));
    }

    @Test
    @Order(9)
    void aWorkerIsDrainedAndRejoins() throws IOException {
        String id = json.readTree(granary("workers", "-o", "json").out()).get(0).get("id").asText();
        assertOneLine(granary("workers", "drain", "nosuch"), Exit.NOT_FOUND, "no live worker 'nosuch'");

        Run drain = granary("workers", "drain", id);
        assertThat(drain.exit()).as(drain.err()).isZero();
        assertThat(drain.out()).contains("worker " + id + " is draining");
        // The only worker: its blocks have no other owner, so the drain ends with them counted as lost.
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(granary("workers").out())
                .containsPattern(id + "\\s+\\S+\\s+drained \\d+/\\d+"));

        assertThat(granary("workers", "rejoin", id).exit()).isZero();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(json.readTree(granary("workers", "-o", "json").out()).get(0).has("drain")).isFalse());
    }

    @Test
    @Order(10)
    void aCallWhileTheMetadataServiceRestartsIsAskedAgainUntilItIsAnswered() throws Exception {
        stack.kill("metadata-service");
        CompletableFuture<Run> listed;
        try {
            // The gateway answers 503 with Retry-After while nothing is behind it; the CLI waits and asks again.
            listed = CompletableFuture.supplyAsync(() -> granary("dataset", "ls"));
        } finally {
            stack.startAgain("metadata-service");
        }
        Run run = listed.get(ManagementApi.UNAVAILABLE_FOR.toSeconds() + 30, TimeUnit.SECONDS);
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("photos");
        assertThat(run.err()).contains("is unavailable for now; asking again in 2 s");
    }

    private static void assertOneLine(Run run, int exit, String says) {
        assertThat(run.exit()).as(run.err()).isEqualTo(exit);
        assertThat(run.err().strip().lines()).singleElement().asString().startsWith("granary: ").contains(says);
        assertThat(run.out()).isEmpty();
    }

    private static String loadId(String out) {
        Matcher id = Pattern.compile("DataLoad (\\S+) of").matcher(out);
        assertThat(id.find()).as(out).isTrue();
        return id.group(1);
    }

    private Run granary(String... args) {
        return run(env, args);
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Granary.commandLine(env, false).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new Run(exit, out.toString(), err.toString());
    }
}
