package io.granary.devstack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One of Granary's own services, packaged ({@code <module>/target/quarkus-app/quarkus-run.jar}), run as a child JVM
 * the way {@code ./granary up} runs it: for tests that need a real neighbour service (a block-service test needs a
 * real metadata-service), and for end-to-end runs. Ready when {@code /q/health/ready} answers 200.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ChildProcess child;
    private final URI url;

    private ServiceProcess(ChildProcess child, URI url) {
        this.child = child;
        this.url = url;
    }

    /**
     * Starts the module's packaged service on {@code port}, with {@code properties} as system properties (any
     * {@code granary.*}, {@code kafka.bootstrap.servers}...), its log in {@code workDir/<module>.log}.
     */
    public static ServiceProcess start(String module, int port, Map<String, String> properties, Path workDir)
            throws IOException {
        Path jar = packagedJar(module);
        KafkaBroker.requireFree("127.0.0.1", port, module);
        List<String> command = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.port=" + port, "-Djava.io.tmpdir=" + workDir.toAbsolutePath()));
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(jar.toString());
        Files.createDirectories(workDir);
        ChildProcess child = ChildProcess.start(module, command, workDir.resolve(module + ".log"));
        URI url = URI.create("http://127.0.0.1:" + port);
        child.awaitReady(() -> ready(url), START_TIMEOUT);
        return new ServiceProcess(child, url);
    }

    /** The service's base URL. */
    public URI url() {
        return url;
    }

    public long pid() {
        return child.pid();
    }

    /** Kills the service at once (SIGKILL), with no graceful shutdown: a crash, not a stop. */
    public void kill() {
        child.kill();
    }

    @Override
    public void close() {
        child.close();
    }

    /**
     * The module's runnable jar, looked for from the working directory up (a module's tests run in the module's
     * directory, tools from the repository root).
     */
    static Path packagedJar(String module) throws IOException {
        Path relative = Path.of(module, "target", "quarkus-app", "quarkus-run.jar");
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        throw new IOException("no packaged " + module + " (" + relative + "): build it first with "
                + "./mvnw -pl " + module + " -am -DskipTests package");
    }

    private static boolean ready(URI url) {
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(url.resolve("/q/health/ready"))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
