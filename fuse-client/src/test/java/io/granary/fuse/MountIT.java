package io.granary.fuse;

import io.granary.devstack.Ports;
import io.granary.devstack.ServiceProcess;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.StackResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIf;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged fuse-client mounting a dataset for real (FUSE, as root) against a real metadata-service and two
 * cache workers, one on this node (its blocks are read from their files) and one standing for another node (read
 * over HTTP): the tree and every byte as the dataset has them, a worker killed while files are read, and the
 * refusals a user meets (an unknown dataset, a mount point that is missing or busy).
 */
@EnabledIf("fuseWorks")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MountIT {

    private static final int MIB = 1 << 20;
    private static StackResource stack;
    private static Map<String, String> config;
    private static Path root;
    private static Path work;
    private static Map<String, byte[]> content = new TreeMap<>();

    static boolean fuseWorks() {
        return Files.exists(Path.of("/dev/fuse")) && "root".equals(System.getProperty("user.name"));
    }

    @BeforeAll
    static void stack() throws IOException {
        stack = new StackResource();
        stack.init(Map.of("services", "metadata-service,block-service,block-service"));
        config = stack.start();
        root = Files.createDirectories(Path.of(config.get("granary.allowed-roots")).resolve("train"));
        work = Files.createDirectories(Path.of(config.get("test.work-dir")));
        Random random = new Random(20261124);
        for (int i = 0; i < 40; i++) {
            content.put("images/part-" + i % 4 + "/img-" + i + ".jpg", bytes(random, 1_000 + random.nextInt(200_000)));
        }
        content.put("shards/shard-0.tar", bytes(random, 5 * MIB + 12_345));  // six blocks, the last one short
        content.put("empty.txt", new byte[0]);
        for (Map.Entry<String, byte[]> file : content.entrySet()) {
            Path path = root.resolve(file.getKey());
            Files.createDirectories(path.getParent());
            Files.write(path, file.getValue());
        }
        Datasets.createBound(URI.create(config.get("granary.metadata-url")),
                Datasets.spec("train", "1MiB", Datasets.localMount(root)));
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.stop();
        }
    }

    @Test
    @Order(1)
    void theMountHoldsTheDatasetsTreeAndEveryByteOfIt() throws Exception {
        try (Mounted mounted = mount("train", "read")) {
            assertThat(tree(mounted.dir())).isEqualTo(new TreeSet<>(content.keySet()));
            for (Map.Entry<String, byte[]> file : content.entrySet()) {
                assertThat(Files.readAllBytes(mounted.dir().resolve(file.getKey()))).as(file.getKey())
                        .isEqualTo(file.getValue());
            }
            // Again: every block is now cached, on this node or the other, and the bytes are the same.
            for (Map.Entry<String, byte[]> file : content.entrySet()) {
                assertThat(Files.readAllBytes(mounted.dir().resolve(file.getKey()))).isEqualTo(file.getValue());
            }
            assertThat(get(mounted.metrics().resolve("/q/health/live"))).contains("\"mount\"").doesNotContain("DOWN");
            String metrics = get(mounted.metrics().resolve("/q/metrics"));
            assertThat(metric(metrics, "granary_fuse_read_bytes_total{source=\"local\"}")).isPositive();
            assertThat(metric(metrics, "granary_fuse_read_bytes_total{source=\"owner\"}")).isPositive();
            assertThat(Files.exists(mounted.dir().resolve("images/nope.jpg"))).isFalse();
            // Sequential reads have several 128 KiB requests in flight: the kernel's window is widened to 1 MiB.
            Process device = new ProcessBuilder("mountpoint", "-d", mounted.dir().toString()).start();
            Path bdi = Path.of("/sys/class/bdi", new String(device.getInputStream().readAllBytes()).strip(),
                    "read_ahead_kb");
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));  // set once libfuse has answered INIT
            while (!Files.readString(bdi).strip().equals("1024") && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            assertThat(Files.readString(bdi).strip()).isEqualTo("1024");
        }
    }

    @Test
    @Order(3)
    void aClientStartedOverTheDeadMountOfAKilledOneMountsInItsPlace() throws Exception {
        Mounted killed = mount("train", "restarted");
        try {
            killed.process().kill();  // SIGKILL: nothing unmounts, the mount stays behind, dead
            assertThat(ProcessHandle.of(killed.process().pid()).filter(ProcessHandle::isAlive)).isEmpty();
            assertThat(mountedAt(killed.dir())).isTrue();
            assertThat(answers(killed.dir())).as("a dead mount answers nothing").isFalse();

            try (Mounted again = mountAt("train", killed.dir(), "restarted-again")) {
                for (Map.Entry<String, byte[]> file : content.entrySet()) {
                    assertThat(Files.readAllBytes(again.dir().resolve(file.getKey()))).as(file.getKey())
                            .isEqualTo(file.getValue());
                }
            }
            assertThat(mountedAt(killed.dir())).as("the dead mount was detached, the new one unmounted").isFalse();
        } finally {
            if (mountedAt(killed.dir())) {  // what a failure left: the stack's directories must still go
                new ProcessBuilder("umount", "-l", killed.dir().toString()).start().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Last: the worker stays dead. */
    @Test
    @Order(4)
    void aWorkerKilledWhileFilesAreReadSlowsTheReadsButFailsNone() throws Exception {
        try (Mounted mounted = mount("train", "killed")) {
            // The worker standing for another node serves half the blocks over HTTP.
            ProcessHandle.of(Long.parseLong(config.get("test.block-service-2-pid")))
                    .ifPresent(ProcessHandle::destroyForcibly);
            for (Map.Entry<String, byte[]> file : content.entrySet()) {
                assertThat(Files.readAllBytes(mounted.dir().resolve(file.getKey()))).as(file.getKey())
                        .isEqualTo(file.getValue());
            }
        }
    }

    @Test
    @Order(2)
    void whatCannotBeMountedIsSaidInOneLineAndNothingIsLeftMounted() throws Exception {
        Path empty = Files.createDirectories(work.resolve("refused"));
        Refusal unknown = refuse("no-such-dataset", empty);
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.line()).contains("no dataset 'no-such-dataset'");

        Refusal missing = refuse("train", work.resolve("not-there"));
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.line()).contains("is not a directory");

        try (Mounted mounted = mount("train", "busy")) {
            Refusal busy = refuse("train", mounted.dir());
            assertThat(busy.exit()).isNotZero();
            assertThat(busy.line()).contains("busy");
        }
        assertThat(mountedAt(empty)).isFalse();
    }

    private record Mounted(Path dir, URI metrics, ServiceProcess process) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            process.close();  // SIGTERM: the client unmounts as it stops
            Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
            while (mountedAt(dir) && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            if (mountedAt(dir)) {
                new ProcessBuilder("umount", "-l", dir.toString()).start().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("the client left " + dir + " mounted");
            }
        }
    }

    private static Mounted mount(String dataset, String name) throws Exception {
        return mountAt(dataset, Files.createDirectories(work.resolve("mnt-" + name)), name);
    }

    /** Waits until the client's mount answers at {@code dir} (a dead mount there before it does not count). */
    private static Mounted mountAt(String dataset, Path dir, String name) throws Exception {
        int port = Ports.free();
        ServiceProcess process = ServiceProcess.start("fuse-client", port, clientConfig(dataset, dir),
                work.resolve(name));
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (!mountedAt(dir) || !answers(dir)) {
            if (Instant.now().isAfter(deadline)) {
                process.close();
                throw new AssertionError("nothing mounted at " + dir);
            }
            Thread.sleep(100);
        }
        return new Mounted(dir, URI.create("http://127.0.0.1:" + port), process);
    }

    private record Refusal(int exit, String line) {
    }

    /** The client run as a user runs it, for a mount that must be refused: its exit code and its one line. */
    private static Refusal refuse(String dataset, Path dir) throws Exception {
        Path log = work.resolve("refusal-" + System.nanoTime() + ".log");
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-Dquarkus.http.port=" + Ports.free()));
        clientConfig(dataset, dir).forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.addAll(java.util.List.of("-jar", Path.of("target", "quarkus-app", "quarkus-run.jar").toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(false)
                .redirectOutput(log.toFile()).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the refused client exits").isTrue();
        String stderr = new String(process.getErrorStream().readAllBytes());
        String line = stderr.lines().filter(l -> l.startsWith("granary-fuse: ")).findFirst().orElse(stderr);
        return new Refusal(process.exitValue(), line);
    }

    private static Map<String, String> clientConfig(String dataset, Path dir) {
        Map<String, String> properties = new HashMap<>();
        properties.put("quarkus.profile", "local");
        properties.put("granary.data-dir", config.get("granary.allowed-roots"));
        properties.put("granary.secrets-dir", config.get("granary.secrets-dir"));
        properties.put("granary.metadata-url", config.get("granary.metadata-url"));
        properties.put("kafka.bootstrap.servers", config.get("kafka.bootstrap.servers"));
        properties.put("granary.fuse.mount-point", dir.toString());
        properties.put("granary.fuse.dataset", dataset);
        properties.put("granary.read.membership-refresh", "1s");
        properties.put("granary.fuse.writes.credentials-ref", "");  // no gateway here: read-only
        return properties;
    }

    private static TreeSet<String> tree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).map(path -> dir.relativize(path).toString())
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }

    private static boolean mountedAt(Path dir) throws IOException {
        String target = dir.toAbsolutePath().toString();
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream().map(line -> line.split(" "))
                .anyMatch(fields -> fields.length > 1 && fields[1].equals(target));
    }

    /** Whether the mount answers a statfs (a stat may come from the kernel's attribute cache, a dead mount's too). */
    private static boolean answers(Path dir) {
        try {
            Files.getFileStore(dir).getTotalSpace();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] bytes(Random random, int size) {
        byte[] bytes = new byte[size];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String get(URI uri) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static double metric(String metrics, String name) {
        return metrics.lines().filter(line -> line.startsWith(name + " ")).mapToDouble(line ->
                Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }
}
