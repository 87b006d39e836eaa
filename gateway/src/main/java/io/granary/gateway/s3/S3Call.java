package io.granary.gateway.s3;

import io.granary.kit.security.Caller;
import io.granary.kit.sigv4.Principal;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.util.concurrent.Callable;

/**
 * An S3 request let through, as the handler of its operation gets it.
 *
 * @param operation which operation it is, told apart once
 * @param principal how the request was signed, which says how an upload's body is read
 * @param caller    the identity it was made for
 */
record S3Call(RoutingContext ctx, S3Request request, S3Operation operation, Principal principal, Caller caller) {

    HttpServerResponse response() {
        return request.http().response();
    }

    /** An XML document as the answer: 200. */
    Future<Void> ok(String xml) {
        return response().putHeader("Content-Type", S3Responses.XML).end(xml);
    }

    <T> Future<T> blocking(Callable<T> work) {
        return blocking(ctx, work);
    }

    /** Off the event loop, unordered: one connection's requests do not wait for each other's blocking work. */
    static <T> Future<T> blocking(RoutingContext ctx, Callable<T> work) {
        return ctx.vertx().executeBlocking(work, false);
    }
}
