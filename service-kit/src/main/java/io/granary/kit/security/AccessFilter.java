package io.granary.kit.security;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.validation.Problem;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Every request to a guarded path, before any route sees it: who is calling (a bearer token: the cluster
 * credential, an identity's token or a Kubernetes ServiceAccount's; or an AWS Signature V4 with an identity's S3
 * keys), then whether {@link AccessRules} let that caller make this call. Anonymous and unknown callers get
 * 401, callers without the right 403, both as problem bodies that say nothing about the server.
 */
@ApplicationScoped
public class AccessFilter {

    /** The body of a signed management call, read to check its hash; whoever forwards the call sends it on. */
    public static final String SIGNED_BODY = "granary.signed-body";
    /** Set by a route that forwards the call to the service that answers it, which records it for the audit. */
    public static final String FORWARDED = "granary.forwarded";

    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private final AccessList access;
    private final ClusterCredential cluster;
    private final TokenReviews reviews;
    private final SignedCallers signed;
    private final AuditTrail audit;
    private final ObjectMapper json;
    private final List<String> guarded;
    private final int maxBody;

    AccessFilter(AccessList access, ClusterCredential cluster, TokenReviews reviews, SignedCallers signed,
                 AuditTrail audit, ObjectMapper json, SecurityConfig config) {
        this.access = access;
        this.cluster = cluster;
        this.reviews = reviews;
        this.signed = signed;
        this.audit = audit;
        this.json = json;
        this.guarded = List.copyOf(config.paths());
        this.maxBody = config.maxBody();
    }

    void routes(@Observes Router router) {
        router.route().order(-200).handler(this::handle);
    }

    /** The caller a guarded request was let through for (set before any route runs). */
    public static Caller caller(RoutingContext ctx) {
        Caller caller = ctx.get(Caller.CONTEXT_KEY);
        if (caller == null) {
            throw new IllegalStateException("no caller: the request did not pass the access filter");
        }
        return caller;
    }

    private void handle(RoutingContext ctx) {
        if (!guards(ctx.normalizedPath())) {
            ctx.next();
            return;
        }
        HttpServerRequest http = ctx.request();
        String authorization = http.getHeader(HttpHeaders.AUTHORIZATION);
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            bearer(ctx, authorization.substring(7).strip());
        } else if (authorization != null && authorization.startsWith("AWS4-HMAC-SHA256")
                || http.getParam("X-Amz-Signature") != null) {
            signed(ctx);
        } else {
            refuse(ctx, 401, "this call needs credentials: an AWS Signature V4 or a bearer token");
        }
    }

    /** Health, metrics and OpenAPI ({@code /q}): Quarkus's own, never guarded. */
    public static boolean quarkus(String path) {
        return path.startsWith("/q/") || path.equals("/q");
    }

    /**
     * Whether a request to this path, normalised as {@link RoutingContext#normalizedPath()} has it, must pass the
     * filter: one of {@code granary.security.paths}, never {@code /q}. On the gateway that is what the management
     * API is, and its S3 routes leave these paths alone. A loop, not a stream: the gateway asks this of every S3
     * request.
     */
    public boolean guards(String path) {
        if (quarkus(path)) {
            return false;
        }
        for (String prefix : guarded) {
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private void bearer(RoutingContext ctx, String token) {
        if (cluster.matches(token)) {
            String onBehalfOf = ctx.request().getHeader(ClusterCredential.ON_BEHALF_OF);
            if (onBehalfOf == null) {
                decide(ctx, Caller.cluster());
            } else {
                access.byName(onBehalfOf).ifPresentOrElse(caller -> decide(ctx, caller),
                        () -> refuse(ctx, 403, "the identity the call was made for is not known here"));
            }
            return;
        }
        Optional<Caller> known = access.byToken(token);
        if (known.isPresent()) {
            decide(ctx, known.get());
        } else if (reviews.enabled()) {
            if (!ctx.request().isEnded()) {  // an h2c upgrade's request came whole: pausing it throws
                ctx.request().pause();
            }
            ctx.vertx().executeBlocking(() -> reviews.username(token).flatMap(access::byServiceAccount), false)
                    .onComplete(result -> {
                        if (result.succeeded() && result.result().isPresent()) {
                            decide(ctx, result.result().get());
                        } else {
                            refuse(ctx, 401, "the bearer token is not valid here");
                        }
                    });
        } else {
            refuse(ctx, 401, "the bearer token is not valid here");
        }
    }

    private void signed(RoutingContext ctx) {
        SignedCallers.Signed caller;
        try {
            caller = signed.verify(ctx.request());
        } catch (SignedCallers.Refused refused) {
            refuse(ctx, refused.status(), refused.getMessage());
            return;
        }
        String sha256 = caller.payloadSha256();
        // Nothing to check: a read's unsigned payload, or the hash of no body and none declared. A body sent in
        // chunks declares no Content-Length either: it is refused below (411), never let through unchecked.
        if (sha256 == null || sha256.equals(EMPTY_SHA256) && ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH) == null
                && ctx.request().getHeader(HttpHeaders.TRANSFER_ENCODING) == null) {
            decide(ctx, caller.caller());
            return;
        }
        if (ctx.request().isEnded()) {  // all of it arrived with the head (an h2c upgrade's request): no body
            if (sha256.equals(EMPTY_SHA256)) {
                decide(ctx, caller.caller());
            } else {
                refuse(ctx, 400, "the body's SHA-256 is not the x-amz-content-sha256 that was signed");
            }
            return;
        }
        long length;
        try {
            length = Long.parseLong(String.valueOf(ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH)));
        } catch (NumberFormatException e) {
            refuse(ctx, 411, "a signed management call needs a Content-Length");
            return;
        }
        if (length > maxBody) {
            refuse(ctx, 413, "a management call's body is at most " + maxBody + " bytes");
            return;
        }
        Future<Buffer> body = ctx.request().body();
        ctx.request().resume();  // Quarkus hands requests on paused
        body.onComplete(read -> {
            if (read.failed()) {
                refuse(ctx, 400, "the request body could not be read");
            } else if (!sha256(read.result()).equals(sha256)) {
                refuse(ctx, 400, "the body's SHA-256 is not the x-amz-content-sha256 that was signed");
            } else {
                ctx.put(SIGNED_BODY, read.result());
                decide(ctx, caller.caller());
            }
        });
    }

    private void decide(RoutingContext ctx, Caller caller) {
        HttpServerRequest http = ctx.request();
        Optional<AccessRules.Match> match = AccessRules.match(http.method().name(), ctx.normalizedPath());
        if (match.isEmpty()) {
            if (caller.role() == Role.CLUSTER) {
                ctx.put(Caller.CONTEXT_KEY, caller);
                ctx.next();
            } else {
                refuse(ctx, 403, "no access rule lets anyone but Granary's services make this call");
            }
            return;
        }
        AccessRules.Rule rule = match.get().rule();
        String dataset = match.get().dataset();
        boolean allowed = rule.scope() == AccessRules.Scope.OWN
                ? caller.role().allows(rule.needs()) : caller.may(rule.needs(), dataset);
        String target = dataset != null ? dataset : ctx.normalizedPath();
        if (!allowed) {
            if (rule.action() != null) {
                audit.record(caller.name(), rule.action(), target, 403);
            }
            refuse(ctx, 403, caller.role().allows(rule.needs())
                    ? "identity '" + caller.name() + "' may not touch " + (dataset == null ? "every dataset" : "dataset '" + dataset + "'")
                    : "identity '" + caller.name() + "' is a " + caller.role().label() + "; this call needs "
                      + rule.needs().label());
            return;
        }
        ctx.put(Caller.CONTEXT_KEY, caller);
        if (rule.action() != null) {
            ctx.addEndHandler(done -> {
                if (!Boolean.TRUE.equals(ctx.get(FORWARDED))) {
                    audit.record(caller.name(), rule.action(), target, ctx.response().getStatusCode());
                }
            });
        }
        ctx.next();
    }

    private void refuse(RoutingContext ctx, int status, String detail) {
        String title = switch (status) {
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            default -> "Bad Request";
        };
        String body;
        try {
            body = json.writeValueAsString(Problem.of(status, title, detail, null));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        if (status == 401) {
            ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"granary\"");
        }
        // A large body nobody will read (a refused block PUT) is not worth draining: that HTTP/1 connection ends
        // with the answer. Any other is drained, so the connection goes on (HTTP/2 streams share theirs).
        HttpServerRequest request = ctx.request();
        boolean abandon = request.version() != HttpVersion.HTTP_2 && !request.isEnded()
                && contentLength(request) > maxBody;
        if (abandon) {
            ctx.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        ctx.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .end(Buffer.buffer(body)).onComplete(sent -> {
                    if (abandon) {
                        request.connection().close();
                    }
                });
        if (!abandon && !request.isEnded()) {
            request.resume();  // Quarkus hands requests on paused: the rest of the body is read and dropped
        }
    }

    private static long contentLength(HttpServerRequest request) {
        try {
            String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
            return length == null ? -1 : Long.parseLong(length);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String sha256(Buffer body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body.getBytes()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
