package io.granary.preload.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.granary.preload.service.DataLoadNotFoundException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.stream.Collectors;

/** Errors as RFC 9457 problem bodies; {@code field} names the bad input. */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response invalid(ValidationException e) {
        return problem(Problem.of(400, "Bad Request", e.getMessage(), e.field()));
    }

    @ServerExceptionMapper
    public Response unreadable(JsonProcessingException e) {
        String field = e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()
                ? mapping.getPath().stream().map(ref -> ref.getFieldName() != null ? ref.getFieldName()
                        : "[" + ref.getIndex() + "]").collect(Collectors.joining(".")).replace(".[", "[")
                : null;
        return problem(Problem.of(400, "Bad Request", (field == null ? "" : field + ": ")
                + "the request body is not valid JSON for this call (" + e.getOriginalMessage() + ")", field));
    }

    @ServerExceptionMapper
    public Response notFound(DataLoadNotFoundException e) {
        return problem(Problem.of(404, "Not Found", e.getMessage(), null));
    }

    private static Response problem(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
