package io.granary.gateway.s3;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** What every S3 answer shares: XML bodies, S3's error document, HTTP dates and quoted etags. */
final class S3Responses {

    static final String XML = "application/xml";

    private S3Responses() {
    }

    static void xml(HttpServerResponse response, int status, String body) {
        response.setStatusCode(status).putHeader("Content-Type", XML).end(body);
    }

    /** S3's error document; a HEAD gets the status alone, as S3 answers it. */
    static void error(S3Request request, HttpServerResponse response, S3Exception error, String requestId) {
        if (response.headWritten()) {
            response.reset();  // mid-body: the client must see a broken transfer, never short bytes
            return;
        }
        // A refusal keeps the CORS headers: a browser shows the page the error, not an opaque failure.
        List<Map.Entry<String, String>> cors = response.headers().entries().stream()
                .filter(header -> header.getKey().regionMatches(true, 0, "Access-Control-", 0, 15)
                        || header.getKey().equalsIgnoreCase("Vary"))
                .toList();
        response.headers().clear();
        cors.forEach(header -> response.headers().add(header.getKey(), header.getValue()));
        response.putHeader("x-amz-request-id", requestId);
        HttpMethod method = request.http().method();
        if ((method == HttpMethod.PUT || method == HttpMethod.POST) && !request.http().isEnded()) {
            response.putHeader("Connection", "close");  // the unread body must not be taken for the next request
        }
        response.setStatusCode(error.status());
        if (method == HttpMethod.HEAD) {
            response.end();
            return;
        }
        xml(response, error.status(), Xml.bare("Error")
                .element("Code", error.code())
                .element("Message", error.getMessage())
                .element("Resource", request.resource())
                .element("RequestId", requestId)
                .end("Error"));
    }

    static String etag(String etag) {
        return '"' + etag + '"';
    }

    static String httpDate(Instant instant) {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(instant.atOffset(ZoneOffset.UTC));
    }
}
