package io.granary.contracts;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** A mapper configured as Quarkus configures its own, so these tests see what the services will. */
public final class QuarkusJson {

    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private QuarkusJson() {
    }

    public static <T> T roundTrip(T value) {
        try {
            @SuppressWarnings("unchecked")
            Class<T> type = (Class<T>) value.getClass();
            return MAPPER.readValue(MAPPER.writeValueAsString(value), type);
        } catch (Exception e) {
            throw new AssertionError("round trip of " + value + " failed", e);
        }
    }
}
