package io.granary.preload.rest;

import io.granary.contracts.dataload.DataLoadApi;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.PreloadRequest;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.ConflictProblem;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.granary.preload.service.DataLoadNotFoundException;
import io.granary.preload.service.DataLoads;
import io.smallrye.mutiny.Multi;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.RestStreamElementType;

import java.util.List;
import java.util.Map;

/** DataLoads: start one, watch it (a snapshot or a stream of server-sent events), cancel it. */
@Path(DataLoadApi.DATALOADS)
@Produces(MediaType.APPLICATION_JSON)
public class DataLoadResource {

    private final DataLoads loads;

    DataLoadResource(DataLoads loads) {
        this.loads = loads;
    }

    /** 202 with the load's id; 400 naming the field for bad input or an unknown dataset. */
    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    public Response create(DataLoadSpec spec, @HeaderParam(DataLoadApi.IDEMPOTENCY_HEADER) String key,
                           RoutingContext ctx) {
        if (spec == null) {
            throw new ValidationException("body", "a DataLoad is required");
        }
        Caller caller = AccessFilter.caller(ctx);
        caller.checkMayTouch(spec.dataset());
        String requestId = null;
        if (key != null) {
            PreloadRequest.checkRequestId(DataLoadApi.IDEMPOTENCY_HEADER, key);
            requestId = "rest:" + caller.name() + ':' + key;  // one caller's keys never meet another's
        }
        DataLoadStatus status = loads.submit(requestId, spec.validate());
        if (!spec.dataset().equals(status.dataset())) {
            throw new ConflictProblem(DataLoadApi.IDEMPOTENCY_HEADER, "this key started a DataLoad of another "
                    + "dataset; a new DataLoad needs a new key");
        }
        return Response.accepted(Map.of("id", status.id(), "status", status)).build();
    }

    @GET
    public List<DataLoadStatus> list(RoutingContext ctx) {
        Caller caller = AccessFilter.caller(ctx);
        return loads.list().stream().filter(load -> caller.mayTouch(load.dataset())).toList();
    }

    @GET
    @Path(DataLoadApi.DATALOAD)
    public DataLoadStatus get(@PathParam("id") String id, RoutingContext ctx) {
        return allowed(ctx, loads.get(id));
    }

    /** The status now, then each change (about twice a second while loading), until the load ends. */
    @GET
    @Path(DataLoadApi.EVENTS)
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @RestStreamElementType(MediaType.APPLICATION_JSON)
    public Multi<DataLoadStatus> events(@PathParam("id") String id, RoutingContext ctx) {
        allowed(ctx, loads.get(id));
        return loads.events(id);
    }

    @DELETE
    @Path(DataLoadApi.DATALOAD)
    public Response cancel(@PathParam("id") String id, RoutingContext ctx) {
        allowed(ctx, loads.get(id));
        return Response.accepted(loads.cancel(id)).build();
    }

    /** A load's dataset must be one the caller may touch; a load of another's looks like none at all. */
    private static DataLoadStatus allowed(RoutingContext ctx, DataLoadStatus load) {
        if (!AccessFilter.caller(ctx).mayTouch(load.dataset())) {
            throw new DataLoadNotFoundException(load.id());
        }
        return load;
    }
}
