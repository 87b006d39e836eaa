package io.granary.kit.client;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

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

    @Test
    void aReadWhoseConnectionFailsIsMadeAgainAndAnAnswerIsNot() {
        AtomicInteger calls = new AtomicInteger();
        assertThat(ReadAgain.call(() -> {
            if (calls.incrementAndGet() < 3) {
                throw new ProcessingException(new IOException("Connection was closed"));
            }
            return "answered";
        })).isEqualTo("answered");
        assertThat(calls).hasValue(3);

        calls.set(0);
        assertThatThrownBy(() -> ReadAgain.call(() -> {
            calls.incrementAndGet();
            throw new ProcessingException(new IOException("Connection refused"));
        })).isInstanceOf(ProcessingException.class);
        assertThat(calls).as("twice again at most").hasValue(3);

        calls.set(0);
        assertThatThrownBy(() -> ReadAgain.call(() -> {
            calls.incrementAndGet();
            throw new WebApplicationException(503);
        })).isInstanceOf(WebApplicationException.class);
        assertThat(calls).as("an answer is final").hasValue(1);
    }
}
