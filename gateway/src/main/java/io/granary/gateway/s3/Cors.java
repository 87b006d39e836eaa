package io.granary.gateway.s3;

import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.bucket.CorsRule;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.validation.ValidationException;
import io.vertx.core.http.HttpServerResponse;
import org.w3c.dom.Element;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A bucket's CORS configuration, as browsers meet it: the document of Put/GetBucketCors, the preflight OPTIONS
 * request (never signed, so answered before any authentication) and the headers of an actual request that comes
 * with an Origin. The first rule that allows the origin and the method answers, as in S3.
 */
final class Cors {

    static final int MAX_CONFIGURATION = 64 * 1024;

    private Cors() {
    }

    static Optional<List<CorsRule>> rules(Dataset dataset) {
        BucketSettings settings = dataset.spec().bucket();
        return Optional.ofNullable(settings == null ? null : settings.cors());
    }

    /** The CORSConfiguration document of a PutBucketCors, checked. */
    static List<CorsRule> parse(byte[] body) {
        Element root = XmlBodies.root(body, "CORSConfiguration");
        List<CorsRule> rules = new ArrayList<>();
        for (Element rule : XmlBodies.elements(root, "CORSRule")) {
            String maxAge = XmlBodies.text(rule, "MaxAgeSeconds");
            Integer seconds;
            try {
                seconds = maxAge == null ? null : Integer.valueOf(maxAge.strip());
            } catch (NumberFormatException e) {
                throw S3Exception.malformedXml("MaxAgeSeconds '" + maxAge + "' is not a number");
            }
            rules.add(new CorsRule(XmlBodies.text(rule, "ID"), texts(rule, "AllowedMethod"),
                    texts(rule, "AllowedOrigin"), texts(rule, "AllowedHeader"), texts(rule, "ExposeHeader"), seconds));
        }
        try {
            new BucketSettings(null, rules, null).validate();
        } catch (ValidationException e) {
            throw S3Exception.malformedXml("the CORS configuration: " + e.getMessage());
        }
        return rules;
    }

    private static List<String> texts(Element parent, String name) {
        return XmlBodies.elements(parent, name).stream().map(element -> element.getTextContent().strip()).toList();
    }

    static String document(List<CorsRule> rules) {
        Xml xml = Xml.document("CORSConfiguration");
        for (CorsRule rule : rules) {
            xml.open("CORSRule").element("ID", rule.id());
            rule.allowedHeaders().forEach(header -> xml.element("AllowedHeader", header));
            rule.allowedMethods().forEach(method -> xml.element("AllowedMethod", method));
            rule.allowedOrigins().forEach(origin -> xml.element("AllowedOrigin", origin));
            rule.exposeHeaders().forEach(header -> xml.element("ExposeHeader", header));
            xml.element("MaxAgeSeconds", rule.maxAgeSeconds()).close("CORSRule");
        }
        return xml.end("CORSConfiguration");
    }

    /**
     * A preflight: 200 with the headers the matching rule allows, or 403 when the bucket has no CORS
     * configuration or no rule allows the origin, method and headers; 400 without an Origin and a method.
     */
    static void preflight(Dataset dataset, S3Request request) {
        String origin = request.header("Origin");
        String method = request.header("Access-Control-Request-Method");
        if (origin == null || method == null) {
            throw new S3Exception(400, "BadRequest", "Insufficient information. Origin request header needed.");
        }
        List<CorsRule> rules = rules(dataset).orElseThrow(() ->
                new S3Exception(403, "AccessForbidden", "CORSResponse: CORS is not enabled for this bucket."));
        String asked = request.header("Access-Control-Request-Headers");
        List<String> headers = asked == null ? List.of() : Arrays.stream(asked.split(",")).map(String::strip)
                .filter(header -> !header.isEmpty()).toList();
        CorsRule rule = match(rules, origin, method, headers).orElseThrow(() -> new S3Exception(403, "AccessForbidden",
                "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, "
                        + "request method / Access-Control-Request-Method or Access-Control-Request-Headers are not "
                        + "whitelisted by the resource's CORS spec."));
        HttpServerResponse response = request.http().response();
        allow(response, rule, origin);
        if (!headers.isEmpty()) {
            response.putHeader("Access-Control-Allow-Headers", String.join(", ", headers));
        }
        if (rule.maxAgeSeconds() != null) {
            response.putHeader("Access-Control-Max-Age", rule.maxAgeSeconds().toString());
        }
    }

    /**
     * An actual request with an Origin: the headers of the first rule that allows it (the method it says it will
     * use, else its own), on whatever the answer turns out to be.
     */
    static void decorate(Dataset dataset, S3Request request) {
        String origin = request.header("Origin");
        String asked = request.header("Access-Control-Request-Method");
        String method = asked != null ? asked : request.http().method().name();
        rules(dataset).flatMap(rules -> match(rules, origin, method, List.of()))
                .ifPresent(rule -> allow(request.http().response(), rule, origin));
    }

    private static void allow(HttpServerResponse response, CorsRule rule, String origin) {
        boolean anyOrigin = rule.allowedOrigins().contains("*");
        response.putHeader("Access-Control-Allow-Origin", anyOrigin ? "*" : origin)
                .putHeader("Access-Control-Allow-Methods", String.join(", ", rule.allowedMethods()))
                .putHeader("Vary", "Origin, Access-Control-Request-Headers, Access-Control-Request-Method");
        if (!anyOrigin) {
            response.putHeader("Access-Control-Allow-Credentials", "true");
        }
        if (!rule.exposeHeaders().isEmpty()) {
            response.putHeader("Access-Control-Expose-Headers", String.join(", ", rule.exposeHeaders()));
        }
    }

    private static Optional<CorsRule> match(List<CorsRule> rules, String origin, String method, List<String> headers) {
        return rules.stream()
                .filter(rule -> rule.allowedMethods().contains(method))
                .filter(rule -> rule.allowedOrigins().stream().anyMatch(allowed -> CorsRule.matches(allowed, origin, false)))
                .filter(rule -> headers.stream().allMatch(header -> rule.allowedHeaders().stream()
                        .anyMatch(allowed -> CorsRule.matches(allowed, header, true))))
                .findFirst();
    }
}
