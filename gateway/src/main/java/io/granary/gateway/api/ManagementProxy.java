package io.granary.gateway.api;

import io.granary.contracts.dataload.DataLoadApi;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import io.granary.kit.security.AccessFilter;
import io.granary.kit.security.Caller;
import io.granary.kit.security.ClusterCredential;
import io.granary.kit.security.Role;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.httpproxy.Body;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyResponse;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.net.URI;

/**
 * {@code /api/v1/**} forwarded to the service that owns it (DataLoads to the preload-service, everything else to
 * the metadata-service), so users need one endpoint. The access filter has let the caller through; the owner gets
 * the cluster credential and the caller's name in place of the caller's own credential, checks the call again
 * for that caller and records it for the audit. Vert.x's reverse proxy streams both ways and keeps status,
 * headers and problem bodies as the owner sent them.
 */
@ApplicationScoped
public class ManagementProxy {

    private final HttpClient client;
    private final ClusterCredential cluster;
    private final SocketAddress metadata;
    private final SocketAddress preload;

    ManagementProxy(Vertx vertx, GatewayConfig config, GranaryConfig shared, ClusterCredential cluster) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(2000));
        this.cluster = cluster;
        this.metadata = address(shared.metadataUrl());
        this.preload = address(config.preloadUrl());
    }

    void routes(@Observes Router router) {
        router.route(DataLoadApi.DATALOADS + "*").order(-90).handler(ctx -> forward(ctx, preload));
        router.route("/api/v1/*").order(-89).handler(ctx -> forward(ctx, metadata));
    }

    private void forward(RoutingContext ctx, SocketAddress owner) {
        Caller caller = AccessFilter.caller(ctx);
        Buffer signedBody = ctx.get(AccessFilter.SIGNED_BODY);
        ctx.put(AccessFilter.FORWARDED, true);
        HttpProxy.reverseProxy(client).origin(owner).addInterceptor(new ProxyInterceptor() {
            @Override
            public Future<ProxyResponse> handleProxyRequest(ProxyContext proxy) {
                proxy.request().headers().remove("X-Amz-Date").remove("X-Amz-Content-Sha256")
                        .remove(ClusterCredential.ON_BEHALF_OF)
                        .set(HttpHeaders.AUTHORIZATION, cluster.authorization());
                if (caller.role() != Role.CLUSTER) {
                    proxy.request().headers().set(ClusterCredential.ON_BEHALF_OF, caller.name());
                }
                if (signedBody != null) {
                    proxy.request().setBody(Body.body(signedBody));
                }
                return proxy.sendRequest();
            }
        }).handle(ctx.request());
    }

    private static SocketAddress address(URI url) {
        return SocketAddress.inetSocketAddress(url.getPort() < 0 ? 80 : url.getPort(), url.getHost());
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
