package io.granary.gateway.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataload.DataLoadApi;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.plan.PlanApi;
import io.granary.contracts.validation.Problem;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.granary.kit.security.ClusterCredential;
import io.granary.kit.security.Role;
import io.granary.kit.security.SecurityConfig;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /api/v1/**} forwarded to the service that owns it (DataLoads and epoch plans to the preload-service,
 * everything else to the metadata-service), so users need one endpoint. The access filter has let the caller through; the owner gets
 * the cluster credential and the caller's name in place of the caller's own credential, checks the call again
 * for that caller and records it for the audit. Status, headers and problem bodies come back as the owner sent
 * them, and an answer of unknown length (a DataLoad's events) streams. An owner that cannot be reached is a 503 with
 * Retry-After, but for a DataLoad's status, answered from the last one it published ({@link PublishedStatuses}), and
 * for a write whose owner refuses connections (it is restarting): that one waits for it up to
 * {@code granary.gateway.owner-wait}, as nothing was sent yet.
 */
@ApplicationScoped
public class ManagementProxy {

    /** Hop-by-hop headers, the caller's credentials and what the sent body sets itself. */
    private static final Set<String> NOT_FORWARDED = Set.of("connection", "keep-alive", "proxy-connection",
            "transfer-encoding", "te", "trailer", "upgrade", "http2-settings", "host", "content-length",
            "authorization", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token",
            ClusterCredential.ON_BEHALF_OF.toLowerCase(Locale.ROOT));

    /** Methods HTTP says may be sent twice with the effect of once. */
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT,
            HttpMethod.DELETE, HttpMethod.OPTIONS);

    /** How often a held write tries its owner again. */
    private static final long RECONNECT_MILLIS = 250;

    private final Vertx vertx;
    private final HttpClient client;
    private final long ownerWaitNanos;
    private final ClusterCredential cluster;
    private final SocketAddress metadata;
    private final SocketAddress preload;
    private final int maxBody;
    private final PublishedStatuses statuses;
    private final ObjectMapper json;

    ManagementProxy(Vertx vertx, GatewayConfig config, GranaryConfig shared, ClusterCredential cluster,
                    SecurityConfig security, PublishedStatuses statuses, ObjectMapper json) {
        this.statuses = statuses;
        this.json = json;
        this.maxBody = security.maxBody();
        this.vertx = vertx;
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(2000));
        this.ownerWaitNanos = config.ownerWait().toNanos();
        this.cluster = cluster;
        this.metadata = address(shared.metadataUrl());
        this.preload = address(config.preloadUrl());
    }

    void routes(@Observes Router router) {
        router.route(DataLoadApi.DATALOADS + "*").order(-90).handler(ctx -> forward(ctx, preload));
        router.route(PlanApi.PLANS + "*").order(-90).handler(ctx -> forward(ctx, preload));
        router.route("/api/v1/*").order(-89).handler(ctx -> forward(ctx, metadata));
    }

    /**
     * The body is read first (a management call's is small) and sent with its length: Vert.x's proxy cannot stream
     * an HTTP/2 request of unknown length to an HTTP/1.1 owner.
     */
    private void forward(RoutingContext ctx, SocketAddress owner) {
        Buffer signed = ctx.get(AccessFilter.SIGNED_BODY);
        if (signed != null) {
            proxy(ctx, owner, signed);
            return;
        }
        HttpServerRequest request = ctx.request();
        if (request.isEnded()) {  // an h2c upgrade's first request, say: all of it arrived already
            proxy(ctx, owner, Buffer.buffer());
            return;
        }
        Buffer body = Buffer.buffer();
        boolean[] tooLarge = {false};
        request.handler(chunk -> {
            if (!tooLarge[0] && body.length() + chunk.length() > maxBody) {
                tooLarge[0] = true;
                ctx.response().setStatusCode(413).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                        .end("{\"type\":\"about:blank\",\"title\":\"Content Too Large\",\"status\":413,"
                                + "\"detail\":\"a management call's body is at most " + maxBody + " bytes\"}");
            } else if (!tooLarge[0]) {
                body.appendBuffer(chunk);
            }
        });
        request.endHandler(end -> {
            if (!tooLarge[0]) {
                proxy(ctx, owner, body);
            }
        });
        request.resume();
    }

    private void proxy(RoutingContext ctx, SocketAddress owner, Buffer body) {
        proxy(ctx, owner, body, IDEMPOTENT.contains(ctx.request().method()) ? 1 : 0, System.nanoTime());
    }

    /**
     * {@code retries}: how often an idempotent call is sent again when its connection fails before any answer came
     * (a pooled connection to a replica that died): the new connection reaches one that is up. A write whose owner
     * gave no connection at all is tried again until {@link #ownerWaitNanos} after {@code since}: a restart of the
     * preload-service took 11.7 s on a slow machine, longer than a client's five asks after Retry-After, and the
     * DataLoad it was creating failed. A read is answered at once, as its caller asks again anyway.
     */
    private void proxy(RoutingContext ctx, SocketAddress owner, Buffer body, int retries, long since) {
        Caller caller = AccessFilter.caller(ctx);
        ctx.put(AccessFilter.FORWARDED, true);
        HttpServerRequest in = ctx.request();
        // The path as it was routed here: the owner sees the call the gateway's access filter let through.
        String uri = in.query() == null ? ctx.normalizedPath() : ctx.normalizedPath() + '?' + in.query();
        RequestOptions options = new RequestOptions().setServer(owner).setMethod(in.method()).setURI(uri);
        in.headers().forEach(header -> {
            if (!NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                options.addHeader(header.getKey(), header.getValue());
            }
        });
        options.putHeader(HttpHeaders.AUTHORIZATION, cluster.authorization());
        if (caller.role() != Role.CLUSTER) {
            options.putHeader(ClusterCredential.ON_BEHALF_OF, caller.name());
        }
        client.request(options).onComplete(connected -> {
            if (connected.failed() && !IDEMPOTENT.contains(in.method()) && !ctx.response().closed()
                    && System.nanoTime() - since < ownerWaitNanos) {
                vertx.setTimer(RECONNECT_MILLIS, timer -> proxy(ctx, owner, body, retries, since));
                return;
            }
            (connected.succeeded() ? connected.result().send(body)
                    : Future.<HttpClientResponse>failedFuture(connected.cause())).onComplete(answer ->
                    answer(ctx, owner, body, retries, since, caller, answer));
        });
    }

    /** The owner's answer passed on, or what stands in for it when none came. */
    private void answer(RoutingContext ctx, SocketAddress owner, Buffer body, int retries, long since, Caller caller,
                        AsyncResult<HttpClientResponse> answer) {
        HttpServerResponse out = ctx.response();
        if (answer.failed() && retries > 0 && !out.closed()) {
            proxy(ctx, owner, body, retries - 1, since);
            return;
        }
        if (answer.failed() && owner == preload && answerFromLastStatus(ctx, caller)) {
            return;
        }
        if (answer.failed()) {
            // Unavailable, not broken: the service that answers it is restarting or moving, as a client that
            // honours Retry-After (the AWS SDKs, for one) takes it.
            out.setStatusCode(503).putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                    .putHeader("Retry-After", "2").end("{\"type\":\"about:blank\",\"title\":"
                    + "\"Service Unavailable\",\"status\":503,\"detail\":\"the service that answers this call "
                    + "cannot be reached now\"}");
            return;
        }
        HttpClientResponse response = answer.result();
        out.setStatusCode(response.statusCode());
        response.headers().forEach(header -> {
            if (!NOT_FORWARDED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                out.putHeader(header.getKey(), header.getValue());
            }
        });
        String length = response.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (length != null) {
            out.putHeader(HttpHeaders.CONTENT_LENGTH, length);
        } else {
            out.setChunked(true);  // a DataLoad's server-sent events go on until it ends
        }
        response.pipeTo(out);
    }

    /**
     * A DataLoad's status while the preload-service cannot be reached: the last one it published, if the caller may
     * see its dataset, marked {@link DataLoadApi#STALE_HEADER} with its time.
     */
    private boolean answerFromLastStatus(RoutingContext ctx, Caller caller) {
        String path = ctx.normalizedPath();
        String prefix = DataLoadApi.DATALOADS + '/';
        if (ctx.request().method() != HttpMethod.GET || !path.startsWith(prefix)
                || path.indexOf('/', prefix.length()) >= 0) {
            return false;
        }
        Optional<DataLoadStatus> last = statuses.last(path.substring(prefix.length()))
                .filter(status -> caller.mayTouch(status.dataset()));
        if (last.isEmpty()) {
            return false;
        }
        try {
            ctx.response().setStatusCode(200).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .putHeader(DataLoadApi.STALE_HEADER, String.valueOf(last.get().updatedAt()))
                    .end(Buffer.buffer(json.writeValueAsBytes(last.get())));
            return true;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    private static SocketAddress address(URI url) {
        return SocketAddress.inetSocketAddress(url.getPort() < 0 ? 80 : url.getPort(), url.getHost());
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
