package io.granary.metadata.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.granary.metadata.service.DatasetExistsException;
import io.granary.metadata.service.DatasetNotFoundException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.stream.Collectors;

/** Every error the API returns is a JSON problem body; bad input names its field. */
public class ProblemMappers {

    @ServerExceptionMapper
    public Response invalid(ValidationException e) {
        return problem(Problem.of(400, "Bad Request", e.getMessage(), e.field()));
    }

    /** Quarkus maps MismatchedInputException to a bare 400 itself; naming it here puts ours first. */
    @ServerExceptionMapper({MismatchedInputException.class, JsonProcessingException.class})
    public Response unreadable(JsonProcessingException e) {
        String field = e instanceof JsonMappingException mapping && !mapping.getPath().isEmpty()
                ? mapping.getPath().stream().map(ref -> ref.getFieldName() != null ? ref.getFieldName()
                        : "[" + ref.getIndex() + "]").collect(Collectors.joining(".")).replace(".[", "[")
                : null;
        String detail = (field == null ? "" : field + ": ") + "the request body is not valid JSON for this call ("
                + e.getOriginalMessage() + ")";
        return problem(Problem.of(400, "Bad Request", detail, field));
    }

    @ServerExceptionMapper
    public Response notFound(DatasetNotFoundException e) {
        return problem(Problem.of(404, "Not Found", e.getMessage(), null));
    }

    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return problem(Problem.of(404, "Not Found", e.getMessage(), null));
    }

    @ServerExceptionMapper
    public Response exists(DatasetExistsException e) {
        return problem(Problem.of(409, "Conflict", e.getMessage(), "name"));
    }

    private static Response problem(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
