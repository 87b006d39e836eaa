package io.granary.block.rest;

import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.granary.ufs.UnderStoreException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** JSON problem bodies for the REST calls of the block API. */
public class ProblemMappers {

    @ServerExceptionMapper({ValidationException.class, UnderStoreException.class})
    public Response problem(RuntimeException e) {
        Problem problem = Problems.of(e);
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
