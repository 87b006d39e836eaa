package io.granary.kit.client;

import io.granary.contracts.worker.Worker;
import io.vertx.core.buffer.Buffer;

/**
 * A call to a worker that did not get the answer it asked for: the worker's status, or 0 when it gave none in full
 * (a body cut short). Whose fault that is: {@link BlockClient#workersFault}.
 */
public final class WorkerCallFailed extends RuntimeException {

    /** Enough of an answer's body to say why; a problem body is shorter. */
    private static final int BODY_SHOWN = 512;

    private final int status;
    private final String body;

    WorkerCallFailed(Worker worker, int status, Buffer body) {
        super("worker " + worker.id() + " answered " + status
                + (body == null || body.length() == 0 ? "" : ": " + shown(body)), null, false, false);
        this.status = status;
        this.body = body == null ? "" : body.toString();
    }

    WorkerCallFailed(Worker worker, String what) {
        super("worker " + worker.id() + " " + what, null, false, false);
        this.status = 0;
        this.body = "";
    }

    /** The worker's status; 0 when it gave no whole answer. */
    public int status() {
        return status;
    }

    /** The body it answered with (a problem body for a refusal). */
    public String body() {
        return body;
    }

    private static String shown(Buffer body) {
        return body.length() <= BODY_SHOWN ? body.toString() : body.getString(0, BODY_SHOWN) + "...";
    }
}
