package io.granary.block.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.validation.Problem;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/** How the block routes answer with a body: JSON, and failures as problem bodies ({@link Problems}). */
@ApplicationScoped
class Replies {

    private static final Logger LOG = Logger.getLogger(Replies.class);

    private final ObjectMapper json;

    Replies(ObjectMapper json) {
        this.json = json;
    }

    /** The problem the failure means to the caller; a 5xx is logged. */
    void problem(RoutingContext ctx, Throwable failure) {
        Problem problem = Problems.of(failure);
        if (problem.status() >= 500) {
            LOG.warnf("%s %s: %s", ctx.request().method(), ctx.request().path(), failure.getMessage());
        }
        problem(ctx, problem);
    }

    void problem(RoutingContext ctx, Problem problem) {
        ctx.response().putHeader("Content-Type", Problem.MEDIA_TYPE);
        json(ctx, problem.status(), problem);
    }

    /** The body as JSON, unless the response was ended already (the client went away, or it was answered). */
    void json(RoutingContext ctx, int status, Object body) {
        HttpServerResponse response = ctx.response();
        if (response.ended()) {
            return;
        }
        try {
            if (response.headers().get("Content-Type") == null) {
                response.putHeader("Content-Type", "application/json");
            }
            response.setStatusCode(status).end(json.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            response.setStatusCode(500).end();
        }
    }
}
