package io.granary.fuse.mount;

import io.granary.contracts.block.ByteSize;
import io.granary.fuse.config.FuseConfig;
import io.granary.fuse.metrics.FuseMetrics;
import io.granary.fuse.read.BlockReads;
import io.granary.fuse.tree.Namespace;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.LocalReadReports;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.client.Suspects;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.config.ReadConfig;
import io.granary.ufs.MountedStores;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/** The mount's parts, made from its configuration: plain classes, so each is tested without a mount or CDI. */
@ApplicationScoped
public class MountBeans {

    /** Threads that fetch blocks from owners (and ahead of readers); the FUSE threads wait on them. */
    private static final int FETCHERS = 16;

    private final ExecutorService fetchers = Executors.newFixedThreadPool(FETCHERS, runnable -> {
        Thread thread = new Thread(runnable, "block-fetch-" + COUNT.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });
    private static final AtomicLong COUNT = new AtomicLong();

    @Inject
    BlockReads reads;

    @Produces
    @ApplicationScoped
    FuseMetrics metrics(MeterRegistry registry) {
        return new FuseMetrics(registry);
    }

    @Produces
    @ApplicationScoped
    LiveWorkers liveWorkers(@RestClient MetadataClient metadata, Suspects suspects, ReadConfig read) {
        return new LiveWorkers(metadata, suspects, read.membershipRefresh());
    }

    void close(@Disposes LiveWorkers workers) {
        workers.close();
    }

    @Produces
    @ApplicationScoped
    Namespace namespace(@RestClient MetadataClient metadata, FuseConfig config, FuseMetrics metrics) {
        return new Namespace(metadata, config.dataset().orElse(null), config.attrTimeout(), metrics);
    }

    @Produces
    @ApplicationScoped
    LocalReadReports localReadReports(BlockClient blocks, Vertx vertx, ReadConfig read) {
        return new LocalReadReports(blocks).every(vertx, read.reportInterval());
    }

    void close(@Disposes LocalReadReports reports) {
        reports.close();
    }

    /** An evicted block's file kept open would hold its space, memory for a memory level, past the worker's quota. */
    @Scheduled(every = "${granary.read.open-files-check}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void closeStale() {
        reads.closeStale();
    }

    @Produces
    @ApplicationScoped
    BlockReads blockReads(LiveWorkers workers, BlockClient blocks, LocalReadReports reports, FuseConfig config,
                          ReadConfig read, GranaryConfig shared, MountedStores stores, FuseMetrics metrics) {
        return new BlockReads(workers, blocks, reports, shared.node(), stores, metrics,
                ByteSize.parse("granary.fuse.block-cache", config.blockCache()), read.readAhead(), fetchers);
    }

    void close(@Disposes BlockReads reads) {
        reads.close();
        fetchers.shutdownNow();
    }
}
