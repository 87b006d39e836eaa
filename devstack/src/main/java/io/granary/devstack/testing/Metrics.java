package io.granary.devstack.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counters as the services expose them at {@code /q/metrics}: what the test reads to know where bytes came from. A
 * series is named as Prometheus selects it, {@code name} (every label set) or {@code name{label="value",...}} (the
 * label sets holding those pairs); one that a service does not expose fails the test, so a misspelt or never
 * registered meter cannot pass for a zero.
 */
public final class Metrics {

    /** Bytes workers fetched from the under-store to fill blocks. */
    public static final String FETCHED_FROM_STORE = "granary_block_fetched_bytes_total{source=\"understore\"}";
    /** Bytes workers were handed by other workers to fill blocks. */
    public static final String FETCHED_FROM_PEERS = "granary_block_fetched_bytes_total{source=\"peer\"}";

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private Metrics() {
    }

    /** The sum of the series on each of the services. */
    public static double sum(String series, List<URI> services) {
        return services.stream().mapToDouble(service -> sum(series, service)).sum();
    }

    /** @throws AssertionError when the service exposes no such series */
    public static double sum(String series, URI service) {
        Matcher selector = SELECTOR.matcher(series);
        if (!selector.matches()) {
            throw new IllegalArgumentException("not a series: " + series);
        }
        String name = selector.group(1);
        List<String> pairs = selector.group(3) == null ? List.of() : labels(selector.group(3));
        List<String> matching = scrape(service).lines()
                .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .filter(line -> labels(line).containsAll(pairs)).toList();
        if (matching.isEmpty()) {
            throw new AssertionError(service + " exposes no series " + series);
        }
        return matching.stream().mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The {@code label="value"} pairs of a selector or a line of the exposition, as written. */
    private static List<String> labels(String text) {
        int open = text.indexOf('{');
        int close = text.lastIndexOf('}');
        String inside = open < 0 ? text : close > open ? text.substring(open + 1, close) : "";
        return LABEL.matcher(inside).results().map(java.util.regex.MatchResult::group).toList();
    }

    private static String scrape(URI service) {
        try {
            return HTTP.send(HttpRequest.newBuilder(service.resolve("/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
