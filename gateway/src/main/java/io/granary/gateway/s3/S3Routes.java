package io.granary.gateway.s3;

import io.granary.gateway.client.NearCache;
import io.granary.gateway.console.Console;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.granary.kit.sigv4.Principal;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The S3 API at the gateway's root, path-style (bucket = dataset, key = path in it), as plain Vert.x routes: bodies
 * stream both ways and a warm read is sent zero-copy, which a REST resource would get in the way of. {@code /q/**}
 * (health, metrics, OpenAPI), {@code /api/**} (the management API) and the console are left to their own routes.
 *
 * <p>The pipeline every S3 request goes through: its id and headers, its metrics, which operation it is, CORS, who
 * signed it and whether they may; then {@link S3Dispatch} answers it, and {@link S3Errors} whatever went wrong.
 */
@ApplicationScoped
public class S3Routes {

    private static final HexFormat REQUEST_ID = HexFormat.of().withUpperCase();
    private static final CharSequence CONTENT_SECURITY_POLICY = HttpHeaders.createOptimized("Content-Security-Policy");
    private static final CharSequence SANDBOX = HttpHeaders.createOptimized("sandbox");
    private static final CharSequence CONTENT_TYPE_OPTIONS = HttpHeaders.createOptimized("X-Content-Type-Options");
    private static final CharSequence NOSNIFF = HttpHeaders.createOptimized("nosniff");

    private final AccessFilter access;
    private final Authenticator authenticator;
    private final Permissions permissions;
    private final NearCache near;
    private final Targets targets;
    private final S3Dispatch dispatch;
    private final GatewayMetrics metrics;

    S3Routes(AccessFilter access, Authenticator authenticator, Permissions permissions, NearCache near,
             Targets targets, S3Dispatch dispatch, GatewayMetrics metrics) {
        this.access = access;
        this.authenticator = authenticator;
        this.permissions = permissions;
        this.near = near;
        this.targets = targets;
        this.dispatch = dispatch;
        this.metrics = metrics;
    }

    void routes(@Observes Router router) {
        router.route().order(-100).handler(this::handle);
    }

    private void handle(RoutingContext ctx) {
        if (!serves(ctx.normalizedPath())) {
            ctx.next();
            return;
        }
        HttpServerRequest http = ctx.request();
        http.pause();  // a body is read once the request is known to be allowed and what it is for
        // Unique enough to find a request in the logs; SecureRandom (UUID) would contend on the hot path.
        String requestId = REQUEST_ID.toHexDigits(ThreadLocalRandom.current().nextLong());
        long started = System.nanoTime();
        http.response().putHeader("x-amz-request-id", requestId).putHeader("Server", "Granary")
                // An object is data, never a page of this origin: an uploaded HTML file opened in a browser must not
                // run script beside the console and read its token.
                .putHeader(CONTENT_SECURITY_POLICY, SANDBOX).putHeader(CONTENT_TYPE_OPTIONS, NOSNIFF);
        Parsed parsed = Parsed.of(http);
        measure(http.response(), parsed.operation(), started);
        if (parsed.failure() != null) {
            S3Errors.fail(parsed.request(), parsed.failure(), requestId);
            return;
        }
        answer(ctx, parsed.request(), parsed.operation())
                .onFailure(failure -> S3Errors.fail(parsed.request(), failure, requestId));
    }

    /**
     * Whether a path is the S3 API's: any but Quarkus's ({@code /q}), the console's and the management API's, which
     * are those the access filter guards. Asked of the normalised path, the one the filter and the other routes
     * match, so that no spelling of a path is S3 to one of them and management to another.
     */
    private boolean serves(String path) {
        return !AccessFilter.quarkus(path) && !access.guards(path) && !Console.serves(path);
    }

    /**
     * A request parsed and told apart, or why it could not be.
     *
     * @param request its path alone when it could not be parsed
     * @param failure null when it was
     */
    private record Parsed(S3Request request, S3Operation operation, RuntimeException failure) {

        static Parsed of(HttpServerRequest http) {
            S3Request request = null;
            try {
                request = S3Request.of(http);
                return new Parsed(request, S3Operation.of(request), null);  // which decodes the query: it may fail
            } catch (RuntimeException failure) {
                return new Parsed(request != null ? request : new S3Request(http, null, null, http.path()),
                        S3Operation.UNKNOWN, failure);
            }
        }
    }

    /** The operation's time to first byte and its answer's status, whatever the answer is. */
    private void measure(HttpServerResponse response, S3Operation operation, long started) {
        response.headersEndHandler(head -> metrics.firstByte(operation.awsName(),
                Duration.ofNanos(System.nanoTime() - started)));
        response.endHandler(end -> metrics.request(operation.awsName(), response.getStatusCode()));
    }

    /** The request answered, if its signer may make it; completes when the answer has been sent. */
    private Future<?> answer(RoutingContext ctx, S3Request request, S3Operation operation) {
        HttpServerRequest http = request.http();
        if (operation == S3Operation.CORS_PREFLIGHT) {
            http.resume();
            return S3Call.blocking(ctx, () -> {
                Cors.preflight(targets.dataset(request), request);
                return true;
            }).compose(done -> http.response().end());
        }
        // The CORS headers go on whatever the answer is, a refusal included: the bucket is looked up first.
        boolean cors = request.bucket() != null && http.getHeader("Origin") != null;
        Future<Object> ready = !cors ? Future.succeededFuture() : S3Call.blocking(ctx, () -> {
            near.dataset(request.bucket()).ifPresent(dataset -> Cors.decorate(dataset, request));
            return true;
        });
        return ready.compose(done -> {
            Principal principal = authenticator.authenticate(http);
            Caller caller = authenticator.caller(principal);
            boolean byRole = Permissions.byRole(caller, request.bucket(), operation)
                    && request.header("x-amz-expected-bucket-owner") == null;
            Future<Object> allowed = byRole ? Future.succeededFuture() : S3Call.blocking(ctx, () -> {
                permissions.check(caller, request, operation);
                return true;
            });
            return allowed.compose(yes -> {
                if (!operation.readsBody()) {
                    http.resume();  // any body is not ours to read: let it drain, so the connection can go on
                } else if ("100-continue".equalsIgnoreCase(http.getHeader("Expect"))) {
                    http.response().writeContinue();  // boto3 waits for it before sending an upload's body
                }
                return dispatch.dispatch(new S3Call(ctx, request, operation, principal, caller));
            });
        });
    }
}
