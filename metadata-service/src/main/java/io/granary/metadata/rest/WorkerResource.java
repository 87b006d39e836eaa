package io.granary.metadata.rest;

import io.granary.contracts.dataset.MetadataApi;
import io.granary.contracts.worker.Worker;
import io.granary.metadata.service.Membership;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** The cache workers: tiers, capacity, use, last heartbeat, and whether they are live. */
@Path(MetadataApi.WORKERS)
@Produces(MediaType.APPLICATION_JSON)
public class WorkerResource {

    private final Membership membership;

    WorkerResource(Membership membership) {
        this.membership = membership;
    }

    @GET
    public List<Worker> workers() {
        return membership.workers();
    }
}
