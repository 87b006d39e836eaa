package io.granary.kit.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.worker.Worker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.granary.kit.client.Loopback.address;
import static io.granary.kit.client.Loopback.await;
import static io.granary.kit.client.Loopback.worker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The accounting of short-circuit reads and its reports, sent to real HTTP servers standing in for workers' block
 * APIs ({@code POST /blocks/{dataset}/reads}).
 */
class LocalReadReportsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Vertx vertx;

    /** A report as a worker received it. */
    record Report(String worker, String path, String contentType, LocalReads reads) {
    }

    private final BlockingQueue<Report> received = new LinkedBlockingQueue<>();
    private final List<HttpServer> servers = new ArrayList<>();
    private BlockClient blocks;
    private LocalReadReports reports;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        await(vertx.close());
    }

    @BeforeEach
    void create() {
        blocks = new BlockClient(vertx, JSON, "Bearer test", Duration.ofSeconds(10),
                new HedgeDelay(Duration.ofSeconds(2), Duration.ofSeconds(2)),
                new Suspects(Duration.ofSeconds(10), Clock.systemUTC()), new SimpleMeterRegistry());
        reports = new LocalReadReports(blocks);
    }

    @AfterEach
    void close() {
        blocks.close();
        servers.forEach(server -> await(server.close()));
    }

    /** A worker whose block API records the reports it gets and answers {@code status}. */
    private Worker worker(String id, int status) {
        HttpServer server = Loopback.server(vertx, request -> request.body().onSuccess(body -> {
            try {
                received.add(new Report(id, request.method() + " " + request.uri(), request.getHeader("Content-Type"),
                        JSON.readValue(body.getBytes(), LocalReads.class)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            request.response().setStatusCode(status).end();
        }));
        servers.add(server);
        return Loopback.worker(id, address(server));
    }

    private List<Report> next(int count) throws InterruptedException {
        List<Report> got = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Report report = received.poll(Loopback.PATIENCE_SECONDS, TimeUnit.SECONDS);
            assertThat(report).as("report %d of %d", i + 1, count).isNotNull();
            got.add(report);
        }
        return got;
    }

    /** Flushes what is pending, then proves nothing else was sent: a marker read is the next and only report. */
    private void assertNothingMoreAfter(Worker worker) throws InterruptedException {
        reports.read(worker, "marker", "marker-block", 100, false);
        reports.flush();
        assertThat(next(1)).singleElement().satisfies(report -> assertThat(report.path()).endsWith("/marker/reads"));
        assertThat(received).isEmpty();
    }

    @Test
    void onATimerReadsAreReportedWithoutAFlushAndWhatIsLeftAtClose() throws InterruptedException {
        Worker w1 = worker("w1", 204);
        LocalReadReports timed = new LocalReadReports(blocks).every(vertx, Duration.ofMillis(100));
        timed.read(w1, "imagenet", "b1", 100, false);
        assertThat(next(1)).singleElement().satisfies(report ->
                assertThat(report.reads().hits()).containsExactly(entry("b1", 1)));

        timed.read(w1, "imagenet", "b2", 100, false);
        timed.close();
        assertThat(next(1)).singleElement().satisfies(report ->
                assertThat(report.reads().hits()).containsExactly(entry("b2", 1)));
        timed.read(w1, "imagenet", "b3", 100, false);
        Thread.sleep(300);  // three periods: the timer is gone, so nothing is sent
        assertThat(received).isEmpty();
    }

    @Test
    void readsFoundAreHitsPerBlockAndFilledOnesAreMisses() throws InterruptedException {
        Worker w1 = worker("w1", 204);
        reports.read(w1, "imagenet", "b1", 100, false);
        reports.read(w1, "imagenet", "b1", 100, false);
        reports.read(w1, "imagenet", "b2", 100, false);
        reports.read(w1, "imagenet", "b1", 100, false);
        reports.read(w1, "imagenet", "b3", 100, true);
        reports.read(w1, "imagenet", "b3", 100, true);

        reports.flush();

        Report report = next(1).get(0);
        assertThat(report.path()).isEqualTo("POST /blocks/imagenet/reads");
        assertThat(report.contentType()).isEqualTo("application/json");
        assertThat(report.reads().hits()).containsOnly(entry("b1", 3), entry("b2", 1));
        assertThat(report.reads().misses()).as("a filled block is a miss, not a hit").isEqualTo(2);
    }

    @Test
    void eachWorkerGetsAReportPerDataset() throws InterruptedException {
        Worker w1 = worker("w1", 204);
        Worker w2 = worker("w2", 204);
        reports.read(w1, "imagenet", "a1", 100, false);
        reports.read(w1, "coco", "c1", 100, false);
        reports.read(w1, "coco", "c2", 100, true);
        reports.read(w2, "imagenet", "a2", 100, false);

        reports.flush();

        Map<String, LocalReads> byTarget = new HashMap<>();
        next(3).forEach(report -> byTarget.put(report.worker() + " " + report.path(), report.reads()));
        assertThat(byTarget).containsOnly(
                entry("w1 POST /blocks/imagenet/reads", new LocalReads(Map.of("a1", 1), 0, 100)),
                entry("w1 POST /blocks/coco/reads", new LocalReads(Map.of("c1", 1), 1, 200)),
                entry("w2 POST /blocks/imagenet/reads", new LocalReads(Map.of("a2", 1), 0, 100)));
        assertNothingMoreAfter(w1);
    }

    @Test
    void aReportIsSentOnceAndTheNextHoldsOnlyLaterReads() throws InterruptedException {
        Worker w1 = worker("w1", 204);
        reports.read(w1, "imagenet", "b1", 100, false);
        reports.flush();
        assertThat(next(1).get(0).reads().hits()).containsOnly(entry("b1", 1));

        reports.read(w1, "imagenet", "b2", 100, true);
        reports.flush();

        assertThat(next(1).get(0).reads()).isEqualTo(new LocalReads(Map.of(), 1, 100));
        assertNothingMoreAfter(w1);
    }

    @Test
    void noReadsNoReport() throws InterruptedException {
        Worker w1 = worker("w1", 204);

        reports.flush();
        reports.flush();

        assertNothingMoreAfter(w1);
    }

    @Test
    void aWorkerAtANewAddressIsReportedThere() throws InterruptedException {
        Worker before = worker("w1", 204);
        Worker moved = worker("w1", 204);  // same id, restarted elsewhere
        reports.read(before, "imagenet", "b1", 100, false);
        reports.read(moved, "imagenet", "b2", 100, false);

        reports.flush();

        List<Report> got = next(2);
        assertThat(got).extracting(report -> report.reads().hits())
                .containsExactlyInAnyOrder(Map.of("b1", 1), Map.of("b2", 1));
    }

    @Test
    void aReportIsCappedAtMaxBlocksButKnownBlocksAndMissesStillCount() throws InterruptedException {
        Worker w1 = worker("w1", 204);
        for (int i = 0; i < LocalReadReports.MAX_BLOCKS; i++) {
            reports.read(w1, "imagenet", "b" + i, 100, false);
        }
        reports.read(w1, "imagenet", "one-too-many", 100, false);
        reports.read(w1, "imagenet", "b0", 100, false);
        reports.read(w1, "imagenet", "filled", 100, true);

        reports.flush();

        LocalReads reads = next(1).get(0).reads();
        assertThat(reads.hits()).hasSize(LocalReadReports.MAX_BLOCKS).doesNotContainKey("one-too-many")
                .contains(entry("b0", 2), entry("b1", 1));
        assertThat(reads.misses()).isEqualTo(1);
    }

    @Test
    void aRefusedReportIsDroppedNotSentAgain() throws InterruptedException {
        Worker refusing = worker("w1", 500);
        reports.read(refusing, "imagenet", "b1", 100, false);
        reports.flush();
        assertThat(next(1).get(0).reads().hits()).containsOnly(entry("b1", 1));

        reports.read(refusing, "imagenet", "b2", 100, false);
        reports.flush();

        assertThat(next(1).get(0).reads().hits()).as("best effort: b1 is not sent again").containsOnly(entry("b2", 1));
    }

    @Test
    void aWorkerThatIsGoneDoesNotStopTheOthersReports() throws InterruptedException {
        Worker gone = Loopback.worker("w0", Loopback.deadAddress(vertx));
        Worker w1 = worker("w1", 204);
        reports.read(gone, "imagenet", "b0", 100, false);
        reports.read(w1, "imagenet", "b1", 100, false);

        reports.flush();

        assertThat(next(1).get(0).reads().hits()).containsOnly(entry("b1", 1));
        assertNothingMoreAfter(w1);
    }
}
