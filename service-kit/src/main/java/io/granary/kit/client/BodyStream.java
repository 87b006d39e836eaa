package io.granary.kit.client;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * A response body read by a blocking caller (a worker's filler thread) as an {@link InputStream}, with
 * back-pressure: the response is paused while more than {@link #HIGH} bytes wait unread, so a block is never held
 * whole in memory. A stalled sender is ended by the request's idle timeout, which fails the stream.
 */
final class BodyStream extends InputStream {

    static final int HIGH = 4 << 20;
    private static final int LOW = 1 << 20;

    private final HttpClientResponse response;
    private final Context context;
    private final Queue<Buffer> chunks = new ArrayDeque<>();
    private Buffer current;
    private int position;
    private long queued;
    private boolean paused;
    private boolean ended;
    private Throwable failure;
    private boolean closed;

    private BodyStream(HttpClientResponse response, Context context) {
        this.response = response;
        this.context = context;
    }

    /** Called on the response's context, before any of its body arrived. */
    static BodyStream of(HttpClientResponse response) {
        BodyStream stream = new BodyStream(response, Vertx.currentContext());
        response.handler(stream::arrived);
        response.exceptionHandler(stream::failed);
        response.endHandler(end -> stream.ended());
        return stream;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] into, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        Buffer chunk;
        synchronized (this) {
            while (current == null || position == current.length()) {
                current = chunks.poll();
                position = 0;
                if (current != null) {
                    continue;
                }
                if (failure != null) {
                    throw failure instanceof IOException io ? io : new IOException(failure.getMessage(), failure);
                }
                if (ended || closed) {
                    return -1;
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while reading a worker's answer", e);
                }
            }
            chunk = current;
        }
        int read = Math.min(length, chunk.length() - position);
        chunk.getBytes(position, position + read, into, offset);
        synchronized (this) {
            position += read;
            queued -= read;
            if (paused && queued < LOW) {
                paused = false;
                context.runOnContext(resume -> response.resume());
            }
        }
        return read;
    }

    /** Gives the rest up: the connection is reset rather than read to its end. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed || ended) {
                closed = true;
                return;
            }
            closed = true;
            chunks.clear();
            notifyAll();
        }
        context.runOnContext(reset -> response.request().reset());
    }

    private synchronized void arrived(Buffer chunk) {
        if (closed) {
            return;
        }
        chunks.add(chunk);
        queued += chunk.length();
        if (!paused && queued > HIGH) {
            paused = true;
            response.pause();
        }
        notifyAll();
    }

    private synchronized void failed(Throwable cause) {
        failure = cause;
        notifyAll();
    }

    private synchronized void ended() {
        ended = true;
        notifyAll();
    }
}
