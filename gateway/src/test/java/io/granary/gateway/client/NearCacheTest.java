package io.granary.gateway.client;

import io.granary.contracts.dataset.FileInfo;
import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.MetadataClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near cache against the real metadata-service (the gateway tests' shared stack):
 * one miss brings the files after it in key order, a page proves a file absent only where it reaches, and a page
 * that was on its way while the cache forgot something is not kept, and readers missing files of one page together
 * ask for it once.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NearCacheTest {

    private static final String DATASET = "near";

    @Inject
    NearCache near;

    @Inject
    GatewayMetrics metrics;

    @Inject
    MeterRegistry registry;

    @Inject
    @RestClient
    MetadataClient metadata;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path buckets;

    @BeforeAll
    void setUp() throws IOException {
        // S3Proxy's filesystem backend: a file in the bucket's directory is an object.
        Path bucket = buckets.resolve(DATASET);
        for (int i = 0; i < 300; i++) {
            write(bucket.resolve("flat/%03d.jpg".formatted(i)), 1 + i % 7);
            write(bucket.resolve("deep/k/%03d.jpg".formatted(i)), 1);
            write(bucket.resolve("many/%03d.jpg".formatted(i)), 1);
        }
        write(bucket.resolve("deep/kb"), 1);
        Datasets.createBound(gateway, Datasets.spec(DATASET, "1MiB", Datasets.s3Mount(DATASET, s3Endpoint)));
    }

    @Test
    void oneMissBringsTheFilesAfterItInKeyOrder() {
        double asked = lookups();
        assertThat(near.file(DATASET, "flat/100.jpg")).map(FileInfo::path).contains("flat/100.jpg");
        assertThat(lookups()).isEqualTo(asked + 1);

        for (int i = 100; i < 100 + NearCache.PAGE && i < 300; i++) {
            String path = "flat/%03d.jpg".formatted(i);
            assertThat(near.file(DATASET, path)).as(path).map(FileInfo::size).contains(1L + i % 7);
        }
        assertThat(lookups()).as("the files after the first came with it").isEqualTo(asked + 1);
        assertThat(near.cachedFile(DATASET, "flat/099.jpg")).as("a page starts at the file missed").isEmpty();
    }

    @Test
    void readersMissingFilesOfOnePageTogetherWaitForOnePage() throws Exception {
        double asked = lookups();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Optional<FileInfo>>> readers = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (int i = 0; i < 16; i++) {
                // Past where the other tests' pages reach (they start in flat/, which sorts before many/).
                String path = "many/%03d.jpg".formatted(200 + i);
                readers.add(pool.submit(() -> {
                    start.await();
                    return near.file(DATASET, path);
                }));
            }
            start.countDown();
            for (Future<Optional<FileInfo>> reader : readers) {
                assertThat(reader.get()).isPresent();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(lookups() - asked).as("pages asked for by 16 readers of one page").isLessThan(16);
    }

    @Test
    void aPageProvesAbsenceOnlyAsFarAsItReaches() {
        assertThat(near.file(DATASET, "flat/150x.jpg")).as("between two listed files").isEmpty();

        // Between the cursor (deep/k) and deep/kb sort the 300 files of deep/k/, more than a page: a stat answers.
        double asked = lookups();
        assertThat(near.file(DATASET, "deep/kb")).map(FileInfo::path).contains("deep/kb");
        assertThat(near.file(DATASET, "deep/ka")).isEmpty();
        assertThat(near.cachedFile(DATASET, "deep/k/000.jpg")).as("the pages were kept all the same").isPresent();
        assertThat(lookups()).isEqualTo(asked + 2);
        assertThat(near.file("no-such-dataset", "flat/000.jpg")).isEmpty();
    }

    @Test
    void aPageOnItsWayWhileTheCacheForgotIsNotKept() {
        AtomicReference<NearCache> cache = new AtomicReference<>();
        AtomicBoolean forgot = new AtomicBoolean();
        // The real client; the cache forgets a file (an event arrived) while the first page is on its way back.
        MetadataClient forgetting = (MetadataClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{MetadataClient.class}, (proxy, method, args) -> {
                    Object answer;
                    try {
                        answer = method.invoke(metadata, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("files") && forgot.compareAndSet(false, true)) {
                        cache.get().forgetFile(DATASET, "flat/201.jpg");
                    }
                    return answer;
                });
        cache.set(new NearCache(forgetting, metrics));

        Optional<FileInfo> found = cache.get().file(DATASET, "flat/200.jpg");

        assertThat(found).as("the reader still gets its answer").map(FileInfo::path).contains("flat/200.jpg");
        assertThat(cache.get().cachedFile(DATASET, "flat/202.jpg")).as("the page was not kept").isEmpty();
        assertThat(cache.get().file(DATASET, "flat/202.jpg")).as("the next miss keeps its page")
                .map(FileInfo::path).contains("flat/202.jpg");
        assertThat(cache.get().cachedFile(DATASET, "flat/203.jpg")).isPresent();
    }

    @Test
    void aCursorSortsJustBeforeItsPath() {
        assertThat(NearCache.cursorBefore("a")).isNull();
        assertThat(NearCache.cursorBefore("dir/b.jpg")).isEqualTo("dir/b.jp");
        assertThat(NearCache.cursorBefore("x\uD83D\uDE00")).as("never half a character").isEqualTo("x");
    }

    private double lookups() {
        Timer timer = registry.find("granary.gateway.cold.stage").tag("stage", GatewayMetrics.METADATA).timer();
        return timer == null ? 0 : timer.count();
    }

    private static void write(Path file, int size) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[size]);
    }
}
