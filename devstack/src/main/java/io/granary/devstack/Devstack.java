package io.granary.devstack;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Command line entry used by {@code ./granary up}: runs one piece of the outside world in the foreground until
 * it is stopped (SIGTERM stops the child too).
 *
 * <pre>
 * java -cp devstack/target/classes io.granary.devstack.Devstack kafka [--host 127.0.0.1] --port 9092 --controller-port 9093 --data DIR
 * java -cp devstack/target/classes io.granary.devstack.Devstack balance --host H --port P --backends h:p,h:p [--health /q/health/ready]
 * java -cp devstack/target/classes io.granary.devstack.Devstack s3 [--host 127.0.0.1] --port 9000 --data DIR --access-key K --secret-key S
 * java -cp devstack/target/classes io.granary.devstack.Devstack hdfs --port 8020 --data DIR
 * java -cp devstack/target/classes io.granary.devstack.Devstack hdfs-classpath    (for HdfsClient, a plain Hadoop client)
 * </pre>
 */
public final class Devstack {

    private Devstack() {
    }

    public static void main(String[] args) throws InterruptedException {
        try {
            run(args);
        } catch (IOException e) {
            // A taken port or a broker that would not start: one readable line, no stack trace.
            System.err.println("devstack: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void run(String[] args) throws IOException, InterruptedException {
        if (args.length == 0) {
            usage("a command is required");
        }
        if (args[0].equals("hdfs-classpath")) {
            System.out.println(ChildClasspath.hdfs());
            return;
        }
        Map<String, String> options = options(args);
        Path data = Path.of(options.getOrDefault("data", ".granary/" + args[0]));
        switch (args[0]) {
            case "kafka" -> {
                try (KafkaBroker broker = KafkaBroker.start(data.resolve("kafka"), options.getOrDefault("host", "127.0.0.1"),
                        port(options, "port", 9092), port(options, "controller-port", 9093))) {
                    System.out.println("kafka ready at " + broker.bootstrapServers() + " (pid " + broker.pid() + ")");
                    System.exit(broker.awaitExit());
                }
            }
            case "s3" -> {
                try (S3ProxyServer s3 = S3ProxyServer.start(data.resolve("s3"),
                        options.getOrDefault("host", "127.0.0.1"), port(options, "port", 9000),
                        required(options, "access-key"), required(options, "secret-key"))) {
                    System.out.println("s3 ready at " + s3.endpoint() + " (pid " + s3.pid() + ")");
                    System.exit(s3.awaitExit());
                }
            }
            case "hdfs" -> {
                try (HdfsServer hdfs = HdfsServer.start(data.resolve("hdfs"), port(options, "port", 8020))) {
                    System.out.println("hdfs ready at " + hdfs.namenode() + " (pid " + hdfs.pid() + ")");
                    System.exit(hdfs.awaitExit());
                }
            }
            case "balance" -> {
                List<String> backends = List.of(required(options, "backends").split(","));
                try (Balancer balancer = Balancer.start(options.getOrDefault("host", "127.0.0.1"), port(options, "port", 8080),
                        backends, options.getOrDefault("health", "/q/health/ready"))) {
                    System.out.println("balancer ready at " + options.getOrDefault("host", "127.0.0.1") + ":"
                            + balancer.port() + " in front of " + backends);
                    Thread.currentThread().join();
                }
            }
            default -> usage("unknown command " + args[0]);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                usage("expected --name value, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static int port(Map<String, String> options, String name, int fallback) {
        String value = options.get(name);
        try {
            return value == null ? fallback : Integer.parseInt(value);
        } catch (NumberFormatException e) {
            usage("--" + name + " must be a port number, got " + value);
            return -1;
        }
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            usage("--" + name + " is required");
        }
        return value;
    }

    private static void usage(String problem) {
        System.err.println("devstack: " + problem);
        System.err.println("usage: Devstack kafka [--host 127.0.0.1] [--port 9092] [--controller-port 9093] [--data DIR]");
        System.err.println("       Devstack balance [--host 127.0.0.1] [--port 8080] --backends HOST:PORT,... [--health PATH]");
        System.err.println("       Devstack s3 [--host 127.0.0.1] [--port 9000] [--data DIR] --access-key K --secret-key S");
        System.err.println("       Devstack hdfs [--port 8020] [--data DIR]");
        System.err.println("       Devstack hdfs-classpath");
        System.exit(2);
    }
}
