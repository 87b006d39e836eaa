package io.granary.devstack.testing;

import io.granary.devstack.Ports;
import io.granary.devstack.ServiceProcess;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * Sets what {@link KafkaResource} and {@link S3Resource} set, plus {@code granary.test.local-root}, a fresh
 * {@code granary.test.work-dir} for the service under test, and {@code granary.test.<module>-url} for each service
 * ({@code <module>-2-url} for its second instance...) and {@code granary.test.<module>-pid}, so a test can kill one.
 */
public class StackResource implements QuarkusTestResourceLifecycleManager {

    private final KafkaResource kafka = new KafkaResource();
    private final S3Resource s3 = new S3Resource();
    private final List<ServiceProcess> services = new ArrayList<>();
    private List<String> modules = List.of();
    private Path dir;

    @Override
    public void init(Map<String, String> initArgs) {
        String names = initArgs.getOrDefault("services", "");
        modules = names.isBlank() ? List.of() : List.of(names.split(","));
    }

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new HashMap<>();
        config.putAll(kafka.start());
        config.putAll(s3.start());
        try {
            dir = Files.createTempDirectory("granary-stack");
            Path localRoot = Files.createDirectories(dir.resolve("local"));
            config.put("granary.test.local-root", localRoot.toString());
            config.put("granary.test.work-dir", Files.createDirectories(dir.resolve("work")).toString());
            Map<String, Integer> instances = new HashMap<>();
            for (String module : modules) {
                String name = module.strip();
                int instance = instances.merge(name, 1, Integer::sum);
                String label = instance == 1 ? name : name + "-" + instance;
                int port = Ports.free();
                ServiceProcess service = ServiceProcess.start(name, port, serviceConfig(name, label, port, config),
                        dir.resolve(label));
                services.add(service);
                config.put("granary.test." + label + "-url", service.url().toString());
                config.put("granary.test." + label + "-pid", Long.toString(service.pid()));
            }
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException(e);
        }
        return config;
    }

    /** What each neighbour needs to share the broker, the S3 secrets and the local root with the service under test. */
    private Map<String, String> serviceConfig(String module, String label, int port, Map<String, String> config) {
        Map<String, String> properties = new HashMap<>();
        properties.put("kafka.bootstrap.servers", config.get("kafka.bootstrap.servers"));
        Path data = dir.resolve(label).resolve("data");
        switch (module) {
            case "metadata-service" -> {
                int clusterPort = Ports.freeForPeers();
                properties.put("granary.metadata.data-dir", data.toString());
                properties.put("granary.metadata.allowed-roots", config.get("granary.test.local-root"));
                properties.put("granary.metadata.secrets-dir", config.get("granary.secrets.dir"));
                properties.put("granary.metadata.heartbeat-interval", "1s");
                properties.put("granary.metadata.cluster.bind-port", Integer.toString(clusterPort));
                properties.put("granary.metadata.cluster.initial-hosts", "127.0.0.1[" + clusterPort + "]");
            }
            case "block-service" -> {
                properties.put("granary.block.worker-id", label);
                if (!label.equals(module)) {
                    // A second worker stands for another node: a gateway here reads its blocks over HTTP.
                    properties.put("granary.block.node", label);
                }
                properties.put("granary.block.advertised-address", "http://127.0.0.1:" + port);
                properties.put("granary.block.heartbeat-interval", "1s");
                properties.put("quarkus.rest-client.metadata.url", config.get("granary.test.metadata-service-url"));
                properties.put("granary.block.allowed-roots", config.get("granary.test.local-root"));
                properties.put("granary.block.secrets-dir", config.get("granary.secrets.dir"));
                properties.put("granary.block.levels[0].paths", data.resolve("mem").toString());
                properties.put("granary.block.levels[0].quota", "256MiB");
                properties.put("granary.block.levels[1].paths", data.resolve("ssd").toString());
                properties.put("granary.block.levels[1].quota", "1GiB");
            }
            default -> throw new IllegalArgumentException("StackResource cannot run " + module + " yet");
        }
        return properties;
    }

    @Override
    public void stop() {
        for (int i = services.size() - 1; i >= 0; i--) {
            services.get(i).close();
        }
        services.clear();
        s3.stop();
        kafka.stop();
        TempDirs.deleteQuietly(dir);
    }
}
