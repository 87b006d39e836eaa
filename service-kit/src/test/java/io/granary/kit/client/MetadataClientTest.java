package io.granary.kit.client;

import jakarta.ws.rs.WebApplicationException;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetadataClientTest {

    @Test
    void aNotFoundIsAbsentAndAnyOtherFailureIsThrown() {
        assertThat(MetadataClient.absentIfNotFound(() -> "found")).contains("found");
        assertThat(MetadataClient.absentIfNotFound(() -> {
            throw new WebApplicationException(404);
        })).isEqualTo(Optional.empty());
        assertThatThrownBy(() -> MetadataClient.absentIfNotFound(() -> {
            throw new WebApplicationException(503);
        })).isInstanceOf(WebApplicationException.class);
    }
}
