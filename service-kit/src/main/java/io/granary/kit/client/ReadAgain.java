package io.granary.kit.client;

import jakarta.ws.rs.ProcessingException;

import java.util.function.Supplier;

/**
 * A call that only reads, made again when its connection fails under it: twice at most, 200 ms apart. Behind a
 * Service of several replicas, a pooled connection to one that died fails the next call sent on it; the next
 * connection reaches a replica that is up. An answer, whatever its status, is never asked again.
 */
public final class ReadAgain {

    private static final int RETRIES = 2;
    private static final long PAUSE_MILLIS = 200;

    private ReadAgain() {
    }

    public static <T> T call(Supplier<T> read) {
        for (int attempt = 0; ; attempt++) {
            try {
                return read.get();
            } catch (ProcessingException e) {  // no answer: refused, reset or closed, timed out
                if (attempt == RETRIES) {
                    throw e;
                }
                try {
                    Thread.sleep(PAUSE_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
