package io.granary.kit.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ProblemMappersTest {

    private final ProblemMappers mappers = new ProblemMappers();

    @Test
    void badInputIsA400NamingTheField() {
        Problem problem = problem(mappers.invalid(new ValidationException("mounts[0].uri", "is required")));

        assertThat(problem.status()).isEqualTo(400);
        assertThat(problem.field()).isEqualTo("mounts[0].uri");
    }

    @Test
    void aBodyOfTheWrongShapeNamesTheJsonPathOfTheBadField() {
        JsonProcessingException wrong = catchThrowableOfType(JsonProcessingException.class, () -> new ObjectMapper()
                .readValue("{\"name\":\"a\",\"mounts\":[{\"uri\":[1]}]}", DatasetSpec.class));

        Problem problem = problem(mappers.unreadable(wrong));

        assertThat(problem.status()).isEqualTo(400);
        assertThat(problem.field()).isEqualTo("mounts[0].uri");
        assertThat(problem.detail()).startsWith("mounts[0].uri: the request body is not valid JSON for this call");
    }

    @Test
    void missingAndConflictingThingsNameTheirField() {
        assertThat(problem(mappers.notFound(new NotFoundProblem("dataset", "no dataset 'x'"))))
                .extracting(Problem::status, Problem::field).containsExactly(404, "dataset");
        assertThat(problem(mappers.conflict(new ConflictProblem("name", "dataset 'x' already exists"))))
                .extracting(Problem::status, Problem::field).containsExactly(409, "name");
    }

    private static Problem problem(Response response) {
        assertThat(response.getMediaType()).hasToString(Problem.MEDIA_TYPE);
        return (Problem) response.getEntity();
    }
}
