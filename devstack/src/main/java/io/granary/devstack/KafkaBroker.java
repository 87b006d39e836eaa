package io.granary.devstack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * A real single-node Apache Kafka broker (KRaft, combined broker and controller) in a child JVM.
 * The data directory is kept, so a broker started again on the same directory keeps its topics.
 */
public final class KafkaBroker implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final String READY_LINE = "Kafka Server started";

    private final ChildProcess child;
    private final String host;
    private final int port;

    private KafkaBroker(ChildProcess child, String host, int port) {
        this.child = child;
        this.host = host;
        this.port = port;
    }

    /** Starts a broker on free loopback ports. */
    public static KafkaBroker start(Path dataDir) throws IOException {
        int[] ports = Ports.free(2);
        return start(dataDir, ports[0], ports[1]);
    }

    public static KafkaBroker start(Path dataDir, int port, int controllerPort) throws IOException {
        return start(dataDir, "127.0.0.1", port, controllerPort);
    }

    /** A broker listening (and advertised) on {@code host}, e.g. a multi-node local cluster's bridge address. */
    public static KafkaBroker start(Path dataDir, String host, int port, int controllerPort) throws IOException {
        requireFree(host, port, "Kafka");
        requireFree(host, controllerPort, "Kafka controller");
        Path dir = dataDir.toAbsolutePath();
        Files.createDirectories(dir);
        Path logDirs = dir.resolve("kraft-logs");
        Path config = writeServerProperties(dir, logDirs, host, port, controllerPort);
        Path log4j = writeLog4j(dir);
        String classpath = ChildClasspath.kafka();

        if (!Files.exists(logDirs.resolve("meta.properties"))) {
            ChildProcess.runToCompletion("kafka-storage-format",
                    List.of("-Xmx128m", "-Dlog4j2.configurationFile=" + log4j, "-cp", classpath,
                            "kafka.tools.StorageTool", "format", "-t", newClusterId(), "-c", config.toString()),
                    dir.resolve("kafka-format.log"), Duration.ofSeconds(60));
        }
        ChildProcess child = ChildProcess.start("kafka",
                List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-Djava.awt.headless=true",
                        "-Dlog4j2.configurationFile=" + log4j, "-Dkafka.logs.dir=" + dir,
                        "-cp", classpath, "kafka.Kafka", config.toString()),
                dir.resolve("kafka.log"));
        child.awaitReady(() -> child.logContains(READY_LINE) && Ports.listening(host, port), START_TIMEOUT);
        return new KafkaBroker(child, host, port);
    }

    public String bootstrapServers() {
        return host + ":" + port;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return child.pid();
    }

    /** Blocks until the broker process exits. */
    public int awaitExit() throws InterruptedException {
        return child.waitFor();
    }

    @Override
    public void close() {
        child.close();
    }

    /** Kills the broker at once (SIGKILL), for a test's end: its files go next, and a controlled stop takes seconds. */
    public void kill() {
        child.kill();
    }

    private static Path writeServerProperties(Path dir, Path logDirs, String host, int port, int controllerPort)
            throws IOException {
        String properties = """
                process.roles=broker,controller
                node.id=1
                controller.quorum.voters=1@%4$s:%2$d
                listeners=PLAINTEXT://%4$s:%1$d,CONTROLLER://%4$s:%2$d
                advertised.listeners=PLAINTEXT://%4$s:%1$d
                controller.listener.names=CONTROLLER
                inter.broker.listener.name=PLAINTEXT
                listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
                log.dirs=%3$s
                num.partitions=3
                auto.create.topics.enable=true
                offsets.topic.replication.factor=1
                offsets.topic.num.partitions=3
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                group.initial.rebalance.delay.ms=0
                message.max.bytes=67108864
                log.retention.hours=24
                log.segment.bytes=16777216
                """.formatted(port, controllerPort, logDirs, host);
        Path file = dir.resolve("server.properties");
        Files.writeString(file, properties, StandardCharsets.UTF_8);
        return file;
    }

    /** Warnings only, except the line that says the broker is up: the readiness wait looks for it. */
    private static Path writeLog4j(Path dir) throws IOException {
        String config = """
                appender.out.type=Console
                appender.out.name=out
                appender.out.layout.type=PatternLayout
                appender.out.layout.pattern=[%d] %p %m (%c)%n
                rootLogger.level=WARN
                rootLogger.appenderRef.out.ref=out
                logger.ready.name=kafka.server.KafkaRaftServer
                logger.ready.level=INFO
                """;
        Path file = dir.resolve("log4j2.properties");
        Files.writeString(file, config, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * Kafka cluster ids are 16 random bytes, URL-safe base64 without padding. One in 64 of those starts with '-',
     * which the storage tool's argument parser takes for an option ("-t: expected one argument"); Kafka's own
     * {@code Uuid.randomUuid()} draws again in that case, and so do we.
     */
    static String newClusterId() {
        SecureRandom random = new SecureRandom();
        byte[] bytes = new byte[16];
        String id;
        do {
            random.nextBytes(bytes);
            id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        } while (id.startsWith("-"));
        return id;
    }

    static void requireFree(String host, int port, String what) throws IOException {
        if (Ports.listening(host, port)) {
            throw new IOException(what + " port " + port + " is already in use on " + host);
        }
    }
}
