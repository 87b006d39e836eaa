package io.granary.contracts.events;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;

import java.time.Instant;

/**
 * One management change as its service answered it, on {@link Topics#AUDIT}.
 *
 * @param who     the caller's identity name ({@code cluster} for a Granary service acting on its own)
 * @param action  what was asked, e.g. {@code dataset.delete}, {@code dataload.start}, {@code cache.free}
 * @param target  what it was asked of: a dataset name, a DataLoad id, or the request path when neither
 * @param outcome {@code done}, {@code failed} (the service refused or erred) or {@code denied} (403)
 * @param status  the HTTP status the caller got
 * @param service the service that answered
 */
public record AuditEvent(String who, String action, String target, String outcome, int status, String service,
                         Instant at) implements Validated<AuditEvent> {

    @Override
    public AuditEvent validate() {
        Check.required("who", who);
        Check.required("action", action);
        Check.required("outcome", outcome);
        Check.required("at", at);
        return this;
    }
}
