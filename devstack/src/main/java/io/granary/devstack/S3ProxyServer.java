package io.granary.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real S3 server (S3Proxy with its filesystem backend) in a child JVM. Buckets are directories under the
 * data directory, so tests can lay out fixtures quickly and the server still speaks real S3 with SigV4.
 */
public final class S3ProxyServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final ChildProcess child;
    private final Path dataDir;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;

    private S3ProxyServer(ChildProcess child, Path dataDir, URI endpoint, String accessKey, String secretKey) {
        this.child = child;
        this.dataDir = dataDir;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
    }

    /** Starts S3Proxy on a free loopback port, storing objects under {@code dataDir}; blocks until it answers. */
    public static S3ProxyServer start(Path dataDir, String accessKey, String secretKey) throws IOException {
        return start(dataDir, Ports.free(), accessKey, secretKey);
    }

    public static S3ProxyServer start(Path dataDir, int port, String accessKey, String secretKey) throws IOException {
        return start(dataDir, "127.0.0.1", port, accessKey, secretKey);
    }

    /** Starts S3Proxy listening on {@code host} only, e.g. an address inside a network namespace. */
    public static S3ProxyServer start(Path dataDir, String host, int port, String accessKey, String secretKey)
            throws IOException {
        if (Ports.listening(host, port)) {
            throw new IOException("S3 port " + port + " is already in use on " + host);
        }
        Path dir = dataDir.toAbsolutePath();
        Path buckets = dir.resolve("buckets");
        Files.createDirectories(buckets);
        URI endpoint = URI.create("http://" + host + ":" + port);
        Path properties = dir.resolve("s3proxy.properties");
        Files.writeString(properties, """
                s3proxy.endpoint=%s
                s3proxy.authorization=aws-v2-or-v4
                s3proxy.identity=%s
                s3proxy.credential=%s
                jclouds.provider=filesystem
                jclouds.filesystem.basedir=%s
                """.formatted(endpoint, accessKey, secretKey, buckets), StandardCharsets.UTF_8);
        Path logback = dir.resolve("logback.xml");
        // Without a configuration S3Proxy logs every request at DEBUG: hundreds of MB in minutes.
        Files.writeString(logback, """
                <configuration>
                  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d %-5level %logger{36} %msg%n</pattern></encoder>
                  </appender>
                  <root level="WARN"><appender-ref ref="out"/></root>
                </configuration>
                """, StandardCharsets.UTF_8);
        ChildProcess child = ChildProcess.start("s3proxy",
                List.of("-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-Dlogback.configurationFile=" + logback,
                        "-jar", ChildClasspath.s3proxyJar().toString(), "--properties", properties.toString()),
                dir.resolve("s3proxy.log"));
        child.awaitReady(() -> answers(endpoint), START_TIMEOUT);
        return new S3ProxyServer(child, buckets, endpoint, accessKey, secretKey);
    }

    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public long pid() {
        return child.pid();
    }

    /** Creates a bucket: with the filesystem backend a bucket is a directory. */
    public void createBucket(String name) {
        try {
            Files.createDirectories(dataDir.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Blocks until the server process exits. */
    public int awaitExit() throws InterruptedException {
        return child.waitFor();
    }

    @Override
    public void close() {
        child.close();
    }

    /** Kills the server at once (SIGKILL), for a test's end: its files go next. */
    public void kill() {
        child.kill();
    }

    private static boolean answers(URI endpoint) {
        if (!Ports.listening(endpoint.getHost(), endpoint.getPort())) {
            return false;
        }
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() > 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
