package io.granary.kit.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import java.util.stream.Collectors;

/**
 * Every service's REST errors as RFC 9457 problem bodies naming the field at fault: bad input (400), a body that
 * is not the JSON the call takes (400, with the JSON path of the bad field), something that does not exist
 * (404) or exists already (409), or that the caller may not touch (403). A service maps its own domain failures (502...) beside these with
 * {@link #problem}.
 */
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
    public Response notFound(NotFoundProblem e) {
        return problem(Problem.of(404, "Not Found", e.getMessage(), e.field()));
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenProblem e) {
        return problem(Problem.of(403, "Forbidden", e.getMessage(), e.field()));
    }

    @ServerExceptionMapper
    public Response conflict(ConflictProblem e) {
        return problem(Problem.of(409, "Conflict", e.getMessage(), e.field()));
    }

    @ServerExceptionMapper
    public Response unavailable(UnavailableProblem e) {
        return Response.fromResponse(problem(Problem.of(503, "Service Unavailable", e.getMessage(), null)))
                .header("Retry-After", Math.max(1, e.retryAfter().toSeconds())).build();
    }

    /** A path no resource serves. */
    @ServerExceptionMapper
    public Response noResource(NotFoundException e) {
        return problem(Problem.of(404, "Not Found", e.getMessage(), null));
    }

    public static Response problem(Problem problem) {
        return Response.status(problem.status()).type(Problem.MEDIA_TYPE).entity(problem).build();
    }
}
