package io.granary.block.rest;

import io.granary.kit.rest.ProblemMappers;
import io.granary.ufs.UnderStoreException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** Under-store failures of the block API's REST calls, as {@link Problems} says (the shared mappers do the rest). */
public class UnderStoreProblemMapper {

    @ServerExceptionMapper
    public Response problem(UnderStoreException e) {
        return ProblemMappers.problem(Problems.of(e));
    }
}
