package io.granary.devstack.testing;

import io.granary.devstack.Ports;
import io.granary.devstack.ServiceProcess;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The outside world of a service under test, all real: a Kafka broker, an S3 server, a local directory for
 * {@code file://} mounts, and the packaged neighbour services named in the {@code services} init arg (in start
 * order, e.g. {@code metadata-service,block-service,block-service}: a name twice is two instances), each a child
 * JVM wired to the same broker, secrets and metadata-service.
 *
 * <pre>
 * &#64;QuarkusTestResource(value = StackResource.class, initArgs = &#64;ResourceArg(name = "services", value = "metadata-service"))
 * </pre>
 *
 * Sets what {@link KafkaResource} and {@link S3Resource} set, plus the shared settings the service under test
 * reads as its neighbours do ({@code granary.allowed-roots}: the local root, {@code granary.metadata-url} once a
 * metadata-service runs), a fresh {@code test.work-dir} for the service under test, and
 * {@code test.<module>-url} for each service ({@code <module>-2-url} for its second instance...) and
 * {@code test.<module>-pid}, so a test can kill one. An init arg {@code <module>:<property>} sets that property
 * of the module's instances, {@code <module>-2:<property>} of its second instance only.
 */
public class StackResource implements QuarkusTestResourceLifecycleManager {

    private static final String ALLOWED_ROOTS = "granary.allowed-roots";
    private static final String SECRETS_DIR = "granary.secrets-dir";
    private static final String METADATA_URL = "granary.metadata-url";

    private final KafkaResource kafka = new KafkaResource();
    private final S3Resource s3 = new S3Resource();
    private final List<ServiceProcess> services = new ArrayList<>();
    private List<String> modules = List.of();
    /** Settings of one module's instances, from init args named {@code <module>:<property>}. */
    private final Map<String, Map<String, String>> extra = new HashMap<>();
    private final Map<String, Integer> instances = new HashMap<>();
    /** How each instance was started, by label: what starting it again after a crash needs. */
    private final Map<String, Launched> launched = new HashMap<>();
    /** What the stack gave the service under test, which a service started later is wired from too. */
    private Map<String, String> config;
    private Path dir;

    @Override
    public void init(Map<String, String> initArgs) {
        String names = initArgs.getOrDefault("services", "");
        modules = names.isBlank() ? List.of() : List.of(names.split(","));
        initArgs.forEach((key, value) -> {
            int colon = key.indexOf(':');
            if (colon > 0) {
                extra.computeIfAbsent(key.substring(0, colon), module -> new HashMap<>()).put(key.substring(colon + 1),
                        value);
            }
        });
    }

    @Override
    public Map<String, String> start() {
        config = new HashMap<>();
        CompletableFuture<Map<String, String>> store = CompletableFuture.supplyAsync(s3::start);  // beside the broker
        try {
            config.putAll(kafka.start());
            config.putAll(store.join());
        } catch (RuntimeException e) {
            // The broker's failure is the one told (a failed store's would have hidden it); neither is left running.
            store.handle((started, failed) -> started).join();
            stop();
            throw e instanceof CompletionException && e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        try {
            dir = Files.createTempDirectory("granary-stack");
            config.put(ALLOWED_ROOTS, Files.createDirectories(dir.resolve("local")).toString());
            config.put("test.work-dir", Files.createDirectories(dir.resolve("work")).toString());
            for (String module : modules) {
                launch(module.strip(), config);
            }
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException(e);
        }
        return new HashMap<>(config);
    }

    /**
     * One more instance of a module, started while the test runs (a worker joining); stopped with the rest. A test
     * gets the stack from a field annotated {@link InjectStack}.
     */
    public synchronized ServiceProcess startAnother(String module) {
        try {
            return launch(module, config);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills an instance ({@code block-service-2}, say) at once, as a crash: SIGKILL, and waits until it is gone. */
    public synchronized void kill(String label) {
        Launched instance = instance(label);
        instance.process().kill();
        ProcessHandle.of(instance.process().pid()).ifPresent(process -> process.onExit().join());
    }

    /** Starts a killed instance again on its port, with its settings and work directory, as a supervisor would. */
    public synchronized void startAgain(String label) {
        Launched instance = instance(label);
        instance.process().close();  // gone already: this only lets go of it
        try {
            ServiceProcess again = ServiceProcess.start(instance.module(), instance.process().url().getPort(),
                    instance.properties(), dir.resolve(label));
            services.set(services.indexOf(instance.process()), again);
            launched.put(label, new Launched(instance.module(), instance.properties(), again));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Launched instance(String label) {
        Launched instance = launched.get(label);
        if (instance == null) {
            throw new IllegalArgumentException("no " + label + " in this stack: " + launched.keySet());
        }
        return instance;
    }

    private record Launched(String module, Map<String, String> properties, ServiceProcess process) {
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(this, new TestInjector.AnnotatedAndMatchesType(InjectStack.class, StackResource.class));
    }

    private ServiceProcess launch(String name, Map<String, String> config) throws IOException {
        int instance = instances.merge(name, 1, Integer::sum);
        String label = instance == 1 ? name : name + "-" + instance;
        int port = Ports.free();
        Map<String, String> properties = serviceConfig(name, label, config);
        ServiceProcess service = ServiceProcess.start(name, port, properties, dir.resolve(label));
        services.add(service);
        launched.put(label, new Launched(name, properties, service));
        config.put("test." + label + "-url", service.url().toString());
        if (label.equals("metadata-service")) {
            config.put(METADATA_URL, service.url().toString());
        }
        config.put("test." + label + "-pid", Long.toString(service.pid()));
        if (name.equals("block-service") && config.containsKey(METADATA_URL)) {
            awaitLive(config.get(METADATA_URL), properties.get("granary.block.worker-id"));
        }
        return service;
    }

    /**
     * Waits until the metadata-service lists the worker live: a worker's process is ready before its first
     * heartbeat is in, and a service started next reads the live workers once at its start.
     */
    private static void awaitLive(String metadata, String worker) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest workers = HttpRequest.newBuilder(URI.create(metadata).resolve("/api/v1/workers"))
                .header("Authorization", Identities.CLUSTER_AUTHORIZATION).timeout(Duration.ofSeconds(5)).build();
        String listed = "";
        try {
            for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); System.nanoTime() < deadline; ) {
                try {
                    listed = http.send(workers, HttpResponse.BodyHandlers.ofString()).body();
                    // Its own "live" is the first after its id: keys in order, and nothing nested has one.
                    int at = listed.indexOf("\"id\":\"" + worker + "\"");
                    int live = at < 0 ? -1 : listed.indexOf("\"live\":", at);
                    if (live >= 0 && listed.startsWith("true", live + "\"live\":".length())) {
                        return;
                    }
                } catch (IOException e) {
                    listed = e.toString();
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for worker " + worker, e);
        }
        throw new IllegalStateException("worker " + worker + " was not listed live within 60 s: " + listed);
    }

    /**
     * Each neighbour runs in the {@code local} profile over the shared local root, as {@code ./granary up} runs a
     * service over its data directory; only what differs per instance is passed.
     */
    private Map<String, String> serviceConfig(String module, String label, Map<String, String> config) {
        Map<String, String> properties = new HashMap<>();
        properties.put("quarkus.profile", "local");
        properties.put("granary.data-dir", config.get(ALLOWED_ROOTS));
        properties.put("granary.mem-dir", dir.resolve("mem").toString());
        properties.put(SECRETS_DIR, config.get(SECRETS_DIR));
        properties.put("kafka.bootstrap.servers", config.get("kafka.bootstrap.servers"));
        if (config.containsKey(METADATA_URL)) {
            properties.put(METADATA_URL, config.get(METADATA_URL));
        }
        switch (module) {
            case "metadata-service" -> {
                int clusterPort = Ports.freeForPeers();
                properties.put("granary.metadata.sweep-interval", "1s");
                properties.put("granary.metadata.cluster.bind-port", Integer.toString(clusterPort));
                properties.put("granary.metadata.cluster.initial-hosts", "127.0.0.1[" + clusterPort + "]");
                properties.put("jgroups.join_timeout", "200ms");  // alone: no peer to wait the default 2 s for
            }
            case "block-service" -> {
                properties.put("granary.block.worker-id", label);
                if (!label.equals(module)) {
                    // A second worker stands for another node: a gateway here reads its blocks over HTTP.
                    properties.put("granary.node", label);
                }
                properties.put("granary.block.heartbeat-interval", "1s");
                properties.put("granary.block.levels[0].quota", "256MiB");
                properties.put("granary.block.levels[1].quota", "1GiB");
            }
            case "preload-service" -> {
                // its defaults serve the local profile as they are
            }
            case "gateway" -> {
                String preload = config.get("test.preload-service-url");
                if (preload != null) {
                    properties.put("granary.gateway.preload-url", preload);
                }
                properties.put("granary.read.membership-refresh", "1s");
            }
            default -> throw new IllegalArgumentException("StackResource cannot run " + module + " yet");
        }
        properties.putAll(extra.getOrDefault(module, Map.of()));
        properties.putAll(extra.getOrDefault(label, Map.of()));
        return properties;
    }

    /**
     * Kills every process at once: the tests are over and their files go next, so a graceful stop (seconds each, the
     * broker's longest) would buy nothing. Tests of a graceful stop make their own.
     */
    @Override
    public void stop() {
        services.forEach(ServiceProcess::kill);
        services.clear();
        s3.stop();
        kafka.stop();
        TempDirs.deleteQuietly(dir);
    }
}
