package io.granary.gateway.client;

import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.client.Suspects;
import io.granary.kit.config.ReadConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.rest.client.inject.RestClient;

/** The gateway's live workers, read at start so the first request finds them. */
@ApplicationScoped
public class LiveWorkersProducer {

    @Produces
    @ApplicationScoped
    @Startup
    LiveWorkers liveWorkers(@RestClient MetadataClient metadata, Suspects suspects, ReadConfig read) {
        return new LiveWorkers(metadata, suspects, read.membershipRefresh());
    }

    void close(@Disposes LiveWorkers workers) {
        workers.close();
    }
}
