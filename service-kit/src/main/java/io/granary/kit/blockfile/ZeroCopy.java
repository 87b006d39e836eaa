package io.granary.kit.blockfile;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.ConnectionBase;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Sends a region of an open block file into a response that goes on after it (the next block of the object),
 * without copying it through the JVM: from the file's mapping when it is kept mapped (a big file in memory: the
 * kernel copies from the mapped pages into the socket), otherwise as a Netty {@code FileRegion}
 * ({@code sendfile(2)}). Vert.x's own {@code sendFile} ends the response and closes the file, so it can serve one
 * block but not an object of several, nor keep the file open for the next read; this writes on the connection
 * itself. That is Vert.x internal API, pinned by the Quarkus BOM. HTTP/2 (whose frames a raw region would
 * corrupt), TLS and compression are refused here and served by copying instead.
 */
public final class ZeroCopy {

    private ZeroCopy() {
    }

    public static boolean possible(HttpServerRequest request) {
        return request.version() != HttpVersion.HTTP_2 && request.connection() instanceof ConnectionBase connection
                && !connection.isSsl() && connection.channel().pipeline().get(HttpContentCompressor.class) == null;
    }

    /**
     * Sends {@code length} bytes of {@code file} from {@code offset}, and releases the caller's reference to it once
     * they are sent or the connection failed. The last byte is held back until the file's seal is found whole
     * ({@link OpenBlockFile#unchanged}): a block file written to under the send (a disk's damage, a stray writer)
     * fails it with {@link BlockFileChanged} before the client has every byte, so the caller breaks the response
     * off and the client asks again, where it would have counted damaged bytes good.
     *
     * @return fails before any byte is sent when the file is shorter than that: the caller serves the range another
     * way; fails with {@link SendBroken} once bytes may be out (the caller breaks the response off)
     */
    public static Future<Void> send(HttpServerRequest request, OpenBlockFile file, long offset, long length) {
        if (file.size() < offset + length) {
            file.release();
            return Future.failedFuture(new IOException("the block file is shorter than expected: " + file.size()
                    + " bytes, not " + (offset + length)));
        }
        if (length == 0) {
            file.release();
            return Future.succeededFuture();
        }
        long most = length - 1;
        Future<Void> sent;
        try {
            sent = most == 0 ? Future.succeededFuture() : write(request, file.isMapped()
                    // The kernel copies from the mapped pages into the socket, which loopback measured faster than
                    // sendfile's page-by-page splice for a big block. The file stays mapped until its reference is
                    // released, after Netty has written it or failed.
                    ? Unpooled.wrappedBuffer(file.mapped(offset, most)) : new Region(file, offset, most)).future();
        } catch (RuntimeException closed) {  // the response is over: the client went away
            file.release();
            return Future.failedFuture(SendBroken.of(file.path(), closed));
        }
        return sent.compose(ignored -> lastByte(request, file, offset + length - 1))
                // Past the first write, bytes may be out; a one-byte send has none out before its byte is read.
                .recover(failure -> Future.failedFuture(most > 0 ? SendBroken.of(file.path(), failure) : failure))
                .onComplete(done -> file.release());
    }

    /** The byte at {@code at}, read before the seal is looked at and sent only if it held. */
    private static Future<Void> lastByte(HttpServerRequest request, OpenBlockFile file, long at) {
        ByteBuffer last = ByteBuffer.allocate(1);
        try {
            file.read(at, 1, last);
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        if (!file.unchanged()) {
            return Future.failedFuture(new BlockFileChanged(file));
        }
        try {
            return write(request, Unpooled.wrappedBuffer(last.flip())).future();
        } catch (RuntimeException closed) {
            return Future.failedFuture(closed);
        }
    }

    /**
     * Sends {@code length} bytes of {@code channel} from {@code offset} with {@code sendfile(2)}, leaving the channel
     * open: a file still being written is sent piece by piece as it grows. Fails with {@link SendBroken}: some of
     * the piece may be out.
     */
    public static Future<Void> sendPart(HttpServerRequest request, FileChannel channel, long offset, long length) {
        try {
            return write(request, new DefaultFileRegion(channel, offset, length) {
                @Override
                protected void deallocate() {
                    // the channel is the caller's
                }
            }).future().recover(failure -> Future.failedFuture(SendBroken.of("a file being filled", failure)));
        } catch (RuntimeException closed) {
            return Future.failedFuture(SendBroken.of("a file being filled", closed));
        }
    }

    /** Writes the message on the connection after the head; completes on the request's context. */
    private static Promise<Void> write(HttpServerRequest request, Object message) {
        if (!request.response().headWritten()) {
            request.response().write(Buffer.buffer());  // the head goes first, as Vert.x's sendFile does
        }
        ConnectionBase connection = (ConnectionBase) request.connection();
        // Netty completes the write on its listener; the promise hands the outcome back on the request's context.
        Promise<Void> sent = connection.getContext().promise();
        ChannelPromise written = connection.channelHandlerContext().newPromise();
        written.addListener(done -> {
            if (done.isSuccess()) {
                sent.complete();
            } else {
                sent.fail(done.cause());
            }
        });
        connection.writeToChannel(message, written);
        return sent;
    }

    /** The region of a file that stays open: the send releases its reference once Netty is done with it. */
    private static final class Region extends DefaultFileRegion {

        Region(OpenBlockFile file, long offset, long length) {
            super(file.channel(), offset, length);
        }

        @Override
        protected void deallocate() {
            // the channel is the file's, closed with its last reference
        }
    }
}
