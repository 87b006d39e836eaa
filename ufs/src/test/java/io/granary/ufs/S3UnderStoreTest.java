package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import io.granary.devstack.S3ProxyServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract against a real S3 server (S3Proxy), with the mount rooted at a prefix inside the bucket. */
class S3UnderStoreTest extends UnderStoreContractTest {

    private static final String BUCKET = "granary";
    private static final String ACCESS_KEY = "AKIAGRANARYTEST";
    private static final String SECRET_KEY = "s3cr3t-do-not-print";

    @TempDir
    static Path dir;

    private static S3ProxyServer server;
    private static S3UnderStore store;

    @BeforeAll
    static void start() throws IOException {
        server = S3ProxyServer.start(dir, ACCESS_KEY, SECRET_KEY);
        server.createBucket(BUCKET);
        store = new S3UnderStore(location(BUCKET), new Credentials(ACCESS_KEY, SECRET_KEY));
    }

    @AfterAll
    static void stop() {
        if (store != null) {
            store.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected UnderStore store() {
        return store;
    }

    /** The filesystem backend keeps objects as files under buckets/: thousands of fixtures in no time. */
    @Override
    protected void seed(String key, byte[] content) {
        Path file = dir.resolve("buckets").resolve(BUCKET).resolve("mnt").resolve(key);
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** 40 MiB in 16 MiB parts: a multipart upload, whose etag ends in the part count. */
    @Override
    protected void checkLargeWrite(ObjectInfo info) {
        assertThat(info.etag()).endsWith("-3");
    }

    /** As S3: the etag of a multipart object is the MD5 of its parts' MD5s, then the part count. */
    @Override
    protected void checkMultipartObject(ObjectInfo info) {
        assertThat(info.etag()).matches("[0-9a-f]{32}-3");
    }

    /**
     * S3Proxy 4.1.0's filesystem backend stores a part for any upload id, unknown, aborted, completed or of
     * another key (under a hidden .mpus-&lt;id&gt; directory), completes a completed upload again, and aborts an
     * upload whatever key the abort names. S3 and MinIO answer NoSuchUpload; checking on our side would cost a
     * request per part, so the store does not.
     */
    @Override
    protected boolean strictUploadIds() {
        return false;
    }

    @Test
    void aPartAboveTheMemoryBufferGoesThroughATemporaryFile() throws IOException {
        byte[] big = random((int) S3UnderStore.PART_SIZE + 1, 51);
        byte[] last = random(17, 52);
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        String id = store.startUpload("mpu/spooled/x");
        String etag1 = part("mpu/spooled/x", id, 1, big);
        String etag2 = part("mpu/spooled/x", id, 2, last);

        assertThat(etag1).isEqualTo(md5(big));
        try (var files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("temporary files are removed")
                    .noneMatch(name -> name.startsWith("granary-part-"));
        }
        ObjectInfo info = store.completeUpload("mpu/spooled/x", id,
                List.of(new UploadedPart(1, etag1), new UploadedPart(2, etag2)));
        assertThat(info.size()).isEqualTo(big.length + last.length);
        assertThat(readAll("mpu/spooled/x", 0, -1)).isEqualTo(concat(big, last));
    }

    /** A gateway's part is a spooled file: reading it must not leave the thread a direct buffer of the part's size. */
    @Test
    void aPartReadFromAFileLeavesNoDirectBufferOfItsSize() throws IOException {
        byte[] content = random((int) S3UnderStore.PART_SIZE, 53);
        Path spooled = Files.createTempFile("granary-test-part-", null);
        Files.write(spooled, content);
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long before = direct.getMemoryUsed();
        String id = store.startUpload("mpu/direct/x");
        try (InputStream in = Files.newInputStream(spooled)) {
            assertThat(store.uploadPart("mpu/direct/x", id, 1, in, content.length)).isEqualTo(md5(content));
        } finally {
            store.abortUpload("mpu/direct/x", id);
            Files.delete(spooled);
        }
        assertThat(direct.getMemoryUsed() - before).as("direct memory the JDK keeps for this thread's reads")
                .isLessThan(S3UnderStore.PART_SIZE / 4);
    }

    @Test
    void aWrongSecretIsAccessDeniedWithoutTheSecret() {
        String wrong = "wrong-secret-0123456789";
        try (S3UnderStore denied = new S3UnderStore(location(BUCKET), new Credentials(ACCESS_KEY, wrong))) {
            assertThatThrownBy(() -> denied.list("", "/", null, 1)).isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("s3://granary/mnt/").hasMessageNotContaining(wrong)
                    .hasMessageNotContaining(SECRET_KEY);
            assertThatThrownBy(() -> denied.stat("any")).isInstanceOf(AccessDeniedException.class)
                    .hasMessageNotContaining(wrong);
        }
    }

    @Test
    void anUnknownAccessKeyIsAccessDenied() {
        try (S3UnderStore denied = new S3UnderStore(location(BUCKET), new Credentials("AKIANOBODY", SECRET_KEY))) {
            assertThatThrownBy(denied::probe).isInstanceOf(AccessDeniedException.class);
        }
    }

    @Test
    void aMissingBucketFailsTheProbe() {
        try (S3UnderStore missing = new S3UnderStore(location("no-such-bucket"), new Credentials(ACCESS_KEY, SECRET_KEY))) {
            assertThatThrownBy(missing::probe).isInstanceOf(UnderStoreException.class)
                    .hasMessageContaining("bucket 'no-such-bucket'");
        }
    }

    @Test
    void anUnreachableEndpointIsUnavailable() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        S3Location nowhere = new S3Location(URI.create("http://127.0.0.1:" + port), "us-east-1", BUCKET, "", true);
        try (S3UnderStore unreachable = new S3UnderStore(nowhere, new Credentials(ACCESS_KEY, SECRET_KEY))) {
            assertThatThrownBy(unreachable::probe).isInstanceOf(UnderStoreUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + port);
        }
    }

    @Test
    void concurrentReadsKeepTheirConnectionsForTheNextOnes() throws Exception {
        seed("concurrent/object", new byte[256 * 1024]);
        S3UnderStore.HTTP.connectionPool().evictAll();
        int readers = 12;  // OkHttp's default pool keeps 5 idle connections: the rest would be opened anew each time
        ExecutorService pool = Executors.newFixedThreadPool(readers);
        try {
            CountDownLatch allOpen = new CountDownLatch(readers);
            List<Future<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < readers; i++) {
                reads.add(pool.submit(() -> {
                    try (InputStream in = store.read("concurrent/object", 0, 256 * 1024)) {
                        allOpen.countDown();
                        assertThat(allOpen.await(30, TimeUnit.SECONDS)).as("every read in flight at once").isTrue();
                        return in.readAllBytes().length;
                    }
                }));
            }
            for (Future<Integer> read : reads) {
                assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(256 * 1024);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(S3UnderStore.HTTP.connectionPool().idleConnectionCount()).isEqualTo(readers);
    }

    @Test
    void etagsAreUnquoted() {
        write("etag/x", new byte[] {1, 2, 3});
        assertThat(store.stat("etag/x").etag()).matches("[0-9a-f]{32}");
        assertThat(store.list("etag/", null, null, 10).objects().get(0).etag()).matches("[0-9a-f]{32}");
    }

    @Test
    void theFactoryChecksAMountWithItsCredentials() {
        UnderStores opener = new UnderStores(List.of(),
                ref -> new Credentials(ACCESS_KEY, ref.equals("wrong") ? "nope-nope" : SECRET_KEY));
        MountedStores stores = new MountedStores(opener, op -> { }, Duration.ZERO);
        Map<String, String> options = Map.of("endpoint", server.endpoint().toString(), "pathStyle", "true");

        stores.check(new Mount("s3://granary/mnt", null, options, "devstack-s3"));
        assertThatThrownBy(() -> stores.check(new Mount("s3://granary/mnt", null, options, "wrong")))
                .isInstanceOf(AccessDeniedException.class).hasMessageNotContaining("nope-nope");
    }

    private static S3Location location(String bucket) {
        return new S3Location(server.endpoint(), "us-east-1", bucket, "mnt", null);
    }
}
