package io.granary.devstack.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Datasets made as a user makes them, through the management API of a real metadata-service (or a gateway in
 * front of it): created, then waited for until their metadata is listed ({@code Bound}). A dataset that turns
 * {@code Failed} fails the caller at once, with the reason the metadata-service gave.
 */
public final class Datasets {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern PHASE = Pattern.compile("\"phase\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern REASON = Pattern.compile("\"reason\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Duration BOUND_WITHIN = Duration.ofSeconds(120);

    private Datasets() {
    }

    /** A dataset's spec as the API takes it. */
    public static String spec(String name, String blockSize, String... mounts) {
        return "{\"name\":\"" + name + "\",\"blockSize\":\"" + blockSize + "\",\"mounts\":["
                + String.join(",", mounts) + "]}";
    }

    /** A mount of a bucket on the devstack S3 server, read with the secret {@link S3Resource} writes. */
    public static String s3Mount(String bucket, String endpoint) {
        return s3Mount(bucket, endpoint, S3Resource.CREDENTIALS_REF);
    }

    public static String s3Mount(String bucket, String endpoint, String credentialsRef) {
        return "{\"uri\":\"s3://" + bucket + "/\",\"credentialsRef\":\"" + credentialsRef + "\",\"options\":"
                + "{\"endpoint\":\"" + endpoint + "\",\"region\":\"us-east-1\",\"pathStyle\":\"true\"}}";
    }

    /** An {@code hdfs://} mount of a directory on devstack's HDFS, which has one DataNode: one replica a file. */
    public static String hdfsMount(String uri) {
        return "{\"uri\":\"" + uri + "\",\"options\":{\"dfs.replication\":\"1\"}}";
    }

    /** A {@code file://} mount of a directory (inside the service's allowed roots). */
    public static String localMount(Path dir) {
        return "{\"uri\":\"" + dir.toAbsolutePath().toUri() + "\"}";
    }

    /** As the test systems' admin ({@link Identities#ADMIN}). */
    public static void createBound(URI api, String spec) {
        createBound(api, Identities.ADMIN.authorization(), spec);
    }

    /**
     * Creates the dataset (a 201, or this throws with the answer) and waits until it is Bound.
     *
     * @param authorization the {@code Authorization} header of an admin
     */
    public static void createBound(URI api, String authorization, String spec) {
        HttpResponse<String> created = send(HttpRequest.newBuilder(api.resolve("/api/v1/datasets"))
                .header("Authorization", authorization).header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(spec)).build());
        if (created.statusCode() != 201) {
            throw new IllegalStateException("creating " + spec + " answered " + created.statusCode() + ": "
                    + created.body());
        }
        Matcher name = Pattern.compile("\"name\"\\s*:\\s*\"([^\"]+)\"").matcher(spec);
        if (!name.find()) {
            throw new IllegalArgumentException("the spec names no dataset: " + spec);
        }
        awaitBound(api, authorization, name.group(1));
    }

    /** As the test systems' admin ({@link Identities#ADMIN}). */
    public static void awaitBound(URI api, String name) {
        awaitBound(api, Identities.ADMIN.authorization(), name);
    }

    /** Waits until the dataset's metadata is listed; throws at once if it turns Failed. */
    public static void awaitBound(URI api, String authorization, String name) {
        Instant deadline = Instant.now().plus(BOUND_WITHIN);
        String last = "";
        while (Instant.now().isBefore(deadline)) {
            HttpResponse<String> got = send(HttpRequest.newBuilder(api.resolve("/api/v1/datasets/" + name))
                    .header("Authorization", authorization).build());
            last = got.statusCode() + " " + got.body();
            Matcher phase = PHASE.matcher(got.body());
            if (got.statusCode() == 200 && phase.find()) {
                if (phase.group(1).equals("Bound")) {
                    return;
                }
                if (phase.group(1).equals("Failed")) {
                    Matcher reason = REASON.matcher(got.body());
                    throw new IllegalStateException("dataset " + name + " failed: "
                            + (reason.find() ? reason.group(1) : got.body()));
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for dataset " + name, e);
            }
        }
        throw new IllegalStateException("dataset " + name + " was not Bound within " + BOUND_WITHIN + "; last: "
                + last);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + request.uri(), e);
        }
    }
}
