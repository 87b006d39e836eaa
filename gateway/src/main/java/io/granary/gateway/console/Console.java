package io.granary.gateway.console;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The web console at {@code /console/}: static files (META-INF/resources/console) that call the management API
 * with the caller's bearer token. The files themselves hold no data and need no credential; every answer they show
 * comes from {@code /api/v1}, which checks the token as for any client. They never reach S3 data.
 */
@ApplicationScoped
public class Console {

    static final String ROOT = "/console/";

    /** Whether the path is the console's, not a bucket's (no dataset may be called {@code console}). */
    public static boolean serves(String path) {
        return path.equals("/console") || path.startsWith(ROOT);
    }

    void routes(@Observes Router router) {
        // Its pages load their modules by relative URLs: /console alone would resolve them against /.
        router.routeWithRegex("/console").order(-95).handler(ctx -> ctx.redirect(ROOT));
    }
}
