package io.granary.gateway.read;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.ufs.MountedStores;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import org.jboss.logging.Logger;

import java.io.InputStream;

/**
 * A range read around the cache, straight from the under-store, of the version the response started with
 * (a changed object fails it rather than mixing two versions in one body).
 */
final class UnderStoreRange {

    private static final Logger LOG = Logger.getLogger(UnderStoreRange.class);

    private static final int CHUNK = 256 * 1024;

    private UnderStoreRange() {
    }

    /** @return completes with the bytes written, once they are all handed to the response */
    static Future<Long> send(Vertx vertx, MountedStores stores, Dataset dataset, FileInfo file, long offset,
                             long length, HttpServerResponse out) {
        long asked = System.nanoTime();
        return vertx.executeBlocking(() -> {
            long began = System.nanoTime();
            MountedStores.Located located = stores.locate(dataset.spec().mounts(), file.path());
            long sent = 0;
            try (InputStream in = located.store().read(located.key(), file.etag(), offset, length)) {
                LOG.debugf("%s from %d: %d ms waiting for a thread, %d ms for the store's answer", file.path(), offset,
                        (began - asked) / 1_000_000, (System.nanoTime() - began) / 1_000_000);
                byte[] chunk = new byte[CHUNK];
                while (sent < length) {
                    int n = in.readNBytes(chunk, 0, (int) Math.min(CHUNK, length - sent));
                    if (n == 0) {
                        throw new IllegalStateException("the under-store ended '" + file.path() + "' after "
                                + (offset + sent) + " of " + file.size() + " bytes");
                    }
                    // Waiting for each write to be taken is the back-pressure of this blocking copy.
                    out.write(Buffer.buffer(n).appendBytes(chunk, 0, n)).toCompletionStage().toCompletableFuture().join();
                    sent += n;
                }
            }
            return sent;
        }, false);
    }
}
