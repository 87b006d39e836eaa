package io.granary.kit.rest;

import java.time.Duration;

/**
 * A call that cannot be done now but may be asked again (Kafka did not take its event in time): 503 with
 * {@code Retry-After}, which the CLI, the console and the AWS SDKs honour.
 */
public class UnavailableProblem extends RuntimeException {

    private final Duration retryAfter;

    public UnavailableProblem(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
