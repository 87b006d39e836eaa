package io.granary.devstack.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

/** Counters as the services expose them at {@code /q/metrics}: what the test reads to know where bytes came from. */
public final class Metrics {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private Metrics() {
    }

    /** The sum of every series of {@code name} (any labels) on each of the services. */
    public static double sum(String name, List<URI> services) {
        return services.stream().mapToDouble(service -> sum(name, service)).sum();
    }

    public static double sum(String name, URI service) {
        try {
            String text = HTTP.send(HttpRequest.newBuilder(service.resolve("/q/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            return text.lines()
                    .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                    .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
