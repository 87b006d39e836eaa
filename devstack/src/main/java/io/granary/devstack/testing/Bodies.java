package io.granary.devstack.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Reading a response body in a test that must fail, not hang, when the bytes never come. */
public final class Bodies {

    private Bodies() {
    }

    /** The next {@code n} bytes of {@code body}; fails with a TimeoutException if they have not come {@code within}. */
    public static byte[] firstBytes(InputStream body, int n, Duration within) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return body.readNBytes(n);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).get(within.toMillis(), TimeUnit.MILLISECONDS);
    }
}
