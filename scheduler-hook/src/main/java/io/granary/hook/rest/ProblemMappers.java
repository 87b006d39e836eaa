package io.granary.hook.rest;

import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/** A malformed AdmissionReview: 400 with an RFC 9457 problem body naming the field. */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response invalid(ValidationException e) {
        Problem problem = Problem.of(400, "Bad Request", e.getMessage(), e.field());
        return Response.status(400).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
