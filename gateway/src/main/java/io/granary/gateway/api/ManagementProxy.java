package io.granary.gateway.api;

import io.granary.contracts.dataload.DataLoadApi;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.httpproxy.HttpProxy;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.net.URI;

/**
 * {@code /api/v1/**} forwarded to the service that owns it (DataLoads to the preload-service, everything else to
 * the metadata-service), so users need one endpoint. Vert.x's reverse proxy streams both ways and keeps status,
 * headers and problem bodies as the owner sent them.
 */
@ApplicationScoped
public class ManagementProxy {

    private final HttpClient client;
    private final HttpProxy metadata;
    private final HttpProxy preload;

    ManagementProxy(Vertx vertx, GatewayConfig config, GranaryConfig shared) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(2000));
        this.metadata = HttpProxy.reverseProxy(client).origin(address(shared.metadataUrl()));
        this.preload = HttpProxy.reverseProxy(client).origin(address(config.preloadUrl()));
    }

    void routes(@Observes Router router) {
        router.route(DataLoadApi.DATALOADS + "*").order(-90).handler(ctx -> preload.handle(ctx.request()));
        router.route("/api/v1/*").order(-89).handler(ctx -> metadata.handle(ctx.request()));
    }

    private static SocketAddress address(URI url) {
        return SocketAddress.inetSocketAddress(url.getPort() < 0 ? 80 : url.getPort(), url.getHost());
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
