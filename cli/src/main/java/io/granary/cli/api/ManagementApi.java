package io.granary.cli.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.cli.CliFailure;
import io.granary.cli.Exit;
import io.granary.contracts.validation.Problem;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The gateway's management API ({@code /api/v1}) as the CLI calls it: JSON in and out, the caller's bearer token,
 * and every failure turned into one line and an exit code. A 503 with {@code Retry-After} (the service behind the
 * gateway restarts, Kafka does not take an event) is asked again after the time it names, for up to
 * {@link #UNAVAILABLE_FOR} in all, saying so on stderr.
 */
public final class ManagementApi {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** How long a call is asked again while it is answered 503: a service restarts in well under this. */
    public static final Duration UNAVAILABLE_FOR = Duration.ofSeconds(90);
    /** The longest single wait, whatever Retry-After says. */
    private static final Duration LONGEST_WAIT = Duration.ofSeconds(10);
    private static final TypeReference<Object> ANY = new TypeReference<>() {
    };

    private final URI endpoint;
    private final String token;
    private final ObjectMapper json;
    private final HttpClient http;
    private final PrintWriter err;

    public ManagementApi(URI endpoint, String token, ObjectMapper json, PrintWriter err) {
        this.endpoint = endpoint;
        this.err = err;
        this.token = token == null || token.isBlank() ? null : token.strip();
        this.json = json;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    public URI endpoint() {
        return endpoint;
    }

    public <T> T get(String path, TypeReference<T> type) {
        return call("GET", path, null, type);
    }

    public <T> T post(String path, Object body, TypeReference<T> type) {
        return call("POST", path, body, type);
    }

    /** A DELETE; the answer (if any) as {@code type}, or null for 204. */
    public <T> T delete(String path, TypeReference<T> type) {
        return call("DELETE", path, null, type);
    }

    /** A DELETE whose answer says nothing more than its status. */
    public void delete(String path) {
        call("DELETE", path, null, ANY);
    }

    /** A POST with no body, whose answer says nothing more than its status. */
    public void post(String path) {
        call("POST", path, null, ANY);
    }

    /**
     * Server-sent events: each event's data, as JSON of {@code type}, to {@code onEvent}, until the server ends the
     * stream or {@code onEvent} answers false.
     */
    public <T> void events(String path, TypeReference<T> type, Predicate<T> onEvent) {
        HttpResponse<Stream<String>> response = send(request("GET", path, null)
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofLines());
        if (response.statusCode() >= 300) {
            String body = String.join("\n", response.body().toList());
            throw failure(response.statusCode(), body);
        }
        try (Stream<String> lines = response.body()) {
            StringBuilder data = new StringBuilder();
            Iterator<String> each = lines.iterator();
            while (each.hasNext()) {
                String line = each.next();
                if (line.isEmpty()) {
                    if (!data.isEmpty()) {
                        if (!onEvent.test(parse(data.toString(), type))) {
                            return;
                        }
                        data.setLength(0);
                    }
                } else if (line.startsWith("data:")) {
                    data.append(data.isEmpty() ? "" : "\n").append(line.substring(line.startsWith("data: ") ? 6 : 5));
                }
            }
            if (!data.isEmpty()) {
                onEvent.test(parse(data.toString(), type));
            }
        } catch (UncheckedIOException e) {
            throw unreachable(e.getCause());
        }
    }

    /** One path segment, encoded. */
    public static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private <T> T call(String method, String path, Object body, TypeReference<T> type) {
        HttpRequest.Builder request = request(method, path, body).timeout(CALL_TIMEOUT);
        HttpResponse<String> response = send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw failure(response.statusCode(), response.body());
        }
        return response.body().isBlank() ? null : parse(response.body(), type);
    }

    private HttpRequest.Builder request(String method, String path, Object body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint.resolve(path)).header("Accept", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body == null) {
            return request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            return request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write the request as JSON", e);
        }
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            long giveUpAt = System.nanoTime() + UNAVAILABLE_FOR.toNanos();
            while (true) {
                HttpResponse<T> response = http.send(request, handler);
                Optional<Duration> wait = retryAfter(response);
                if (wait.isEmpty() || System.nanoTime() + wait.get().toNanos() > giveUpAt) {
                    return response;
                }
                if (response.body() instanceof Stream<?> lines) {
                    lines.close();  // an event stream's: its connection goes back
                }
                err.println("granary: " + request.method() + " " + request.uri().getPath() + " is unavailable for now;"
                        + " asking again in " + wait.get().toSeconds() + " s");
                err.flush();
                Thread.sleep(wait.get().toMillis());
            }
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(Exit.UNAVAILABLE, "interrupted");
        }
    }

    /** How long a 503 asks to wait before the call is made again; empty for any other answer. */
    static Optional<Duration> retryAfter(HttpResponse<?> response) {
        if (response.statusCode() != 503) {
            return Optional.empty();
        }
        return response.headers().firstValue("Retry-After").flatMap(value -> {
            try {
                long seconds = Long.parseLong(value.strip());
                return seconds < 0 ? Optional.empty()
                        : Optional.of(Duration.ofSeconds(Math.max(1, Math.min(seconds, LONGEST_WAIT.toSeconds()))));
            } catch (NumberFormatException e) {
                return Optional.empty();  // an HTTP date: not one of Granary's, so not a restart it knows of
            }
        });
    }

    private <T> T parse(String body, TypeReference<T> type) {
        try {
            return json.readValue(body, type);
        } catch (JsonProcessingException e) {
            throw new CliFailure(Exit.UNAVAILABLE, endpoint + " answered something that is not Granary's JSON: "
                    + e.getOriginalMessage());
        }
    }

    private CliFailure unreachable(Throwable cause) {
        String why = cause instanceof ConnectException || cause instanceof HttpConnectTimeoutException
                ? "nothing answers there" : String.valueOf(cause.getMessage());
        return new CliFailure(Exit.UNAVAILABLE, "cannot reach the gateway at " + endpoint + " (" + why
                + "): start Granary with ./granary up, or set GRANARY_ENDPOINT to a running gateway");
    }

    /** A problem body (RFC 9457) as one line naming the field; an error without one by its status. */
    private CliFailure failure(int status, String body) {
        Problem problem = null;
        try {
            problem = body == null || body.isBlank() ? null : json.readValue(body, Problem.class);
        } catch (JsonProcessingException e) {
            // not a problem body: the status says it
        }
        String detail = problem == null || problem.detail() == null
                ? (problem != null && problem.title() != null ? problem.title() : "HTTP " + status)
                : problem.detail();
        boolean named = problem == null || problem.field() == null || detail.startsWith(problem.field() + ":");
        String message = (named ? "" : problem.field() + ": ") + detail;
        return switch (status) {
            case 401 -> new CliFailure(Exit.DENIED, (token == null ? "no credentials" : "the token was refused")
                    + ": set GRANARY_TOKEN (eval \"$(./granary env)\" prints it for the local system)");
            case 403 -> new CliFailure(Exit.DENIED, "not allowed: " + message);
            case 404 -> new CliFailure(Exit.NOT_FOUND, message);
            default -> new CliFailure(status >= 500 ? Exit.UNAVAILABLE : Exit.REFUSED, message);
        };
    }
}
