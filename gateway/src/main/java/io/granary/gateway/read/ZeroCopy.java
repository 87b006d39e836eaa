package io.granary.gateway.read;

import io.netty.channel.ChannelFuture;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * Sends a region of a file into a response that goes on after it (the next block of the object), zero-copy.
 * Vert.x's own {@code sendFile} ends the response, so it can serve one block but not an object of several; this
 * does what it does inside (a Netty {@code FileRegion}, i.e. {@code sendfile(2)}, on the connection) without the end.
 * That is Vert.x internal API, pinned by the Quarkus BOM; HTTP/2 (whose frames a raw region would corrupt) is
 * refused here and served by copying instead.
 */
final class ZeroCopy {

    private ZeroCopy() {
    }

    static boolean possible(HttpServerRequest request) {
        return request.version() != HttpVersion.HTTP_2 && request.connection() instanceof ConnectionBase;
    }

    /**
     * @return fails before any byte is sent when the file cannot be opened (evicted meanwhile): the caller serves
     * the range another way
     */
    static Future<Void> send(HttpServerRequest request, Path file, long offset, long length) {
        RandomAccessFile raf;
        try {
            raf = new RandomAccessFile(file.toFile(), "r");
            if (raf.length() < offset + length) {
                raf.close();
                return Future.failedFuture(new IOException(file + " is shorter than expected"));
            }
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        if (!request.response().headWritten()) {
            request.response().write(Buffer.buffer());  // the head goes first, as Vert.x's sendFile does
        }
        ConnectionBase connection = (ConnectionBase) request.connection();
        // Netty completes the write on its listener; the promise hands the outcome back on the request's context.
        Promise<Void> sent = connection.getContext().promise();
        try {
            ChannelFuture future = connection.sendFile(raf, offset, length);
            future.addListener(done -> {
                closeQuietly(raf);
                if (done.isSuccess()) {
                    sent.complete();
                } else {
                    sent.fail(done.cause());
                }
            });
        } catch (IOException | RuntimeException e) {
            closeQuietly(raf);
            sent.fail(e);
        }
        return sent.future();
    }

    private static void closeQuietly(RandomAccessFile raf) {
        try {
            raf.close();
        } catch (IOException ignored) {
            // read-only: nothing was lost
        }
    }
}
