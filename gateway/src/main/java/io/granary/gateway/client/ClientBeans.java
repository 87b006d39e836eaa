package io.granary.gateway.client;

import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.LocalReadReports;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.client.Suspects;
import io.granary.kit.config.ReadConfig;
import io.quarkus.runtime.Startup;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/**
 * The kit's read clients as the gateway uses them: its live workers, read at start so the first request finds them,
 * and the reports of what it read from workers' files on this node, sent every {@code granary.read.report-interval}.
 */
@ApplicationScoped
public class ClientBeans {

    @Produces
    @ApplicationScoped
    @Startup
    LiveWorkers liveWorkers(@RestClient MetadataClient metadata, Suspects suspects, ReadConfig read) {
        return new LiveWorkers(metadata, suspects, read.membershipRefresh());
    }

    void close(@Disposes LiveWorkers workers) {
        workers.close();
    }

    @Produces
    @ApplicationScoped
    LocalReadReports localReadReports(BlockClient blocks, Vertx vertx, ReadConfig read) {
        return new LocalReadReports(blocks).every(vertx, read.reportInterval());
    }

    void close(@Disposes LocalReadReports reports) {
        reports.close();
    }
}
