package io.granary.operator.granary;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;

/** What a failed call to Granary means for a reconcile. */
public final class GranaryCalls {

    private GranaryCalls() {
    }

    /** Granary could not answer (down, restarting, overloaded): try again later, the resource is not at fault. */
    public static boolean unreachable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof ProcessingException || cause instanceof java.net.ConnectException) {
                return true;
            }
            if (cause instanceof WebApplicationException web && web.getResponse() != null
                    && web.getResponse().getStatus() >= 500) {
                return true;
            }
        }
        return false;
    }

    public static boolean status(Throwable failure, int status) {
        return failure instanceof WebApplicationException web && web.getResponse() != null
                && web.getResponse().getStatus() == status;
    }

    /** The problem body's detail of a 4xx, or the failure's message. */
    public static String detail(Throwable failure) {
        if (failure instanceof WebApplicationException web && web.getResponse() != null) {
            try {
                web.getResponse().bufferEntity();
                String body = web.getResponse().readEntity(String.class);
                if (body != null && !body.isBlank()) {
                    return "Granary answered " + web.getResponse().getStatus() + ": " + body;
                }
            } catch (RuntimeException ignored) {
                // no body to read
            }
        }
        return failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    }
}
