package io.granary.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code ./granary}, as a user runs it: {@code up} starts Kafka and every service as separate processes,
 * {@code down} stops them. Its state (PIDs, logs) and the workers' MEM level live under this run's own
 * directories, so a developer's own {@code ./granary up} is never touched.
 */
final class Launcher implements AutoCloseable {

    private final Path root;
    private final Path state;
    private final Map<String, String> env;

    /**
     * @param env extra environment for the services (the launcher passes its environment on to them)
     */
    Launcher(Path root, Path work, Map<String, String> env) {
        this.root = root;
        this.state = work.resolve("state");
        this.env = Map.copyOf(env);
    }

    /** {@code ./granary up --workers N --hdfs}: an HDFS beside the services, for an hdfs:// dataset. */
    void up(Path data, int workers) {
        int exit = run(List.of("up", "--data", data.toString(), "--workers", Integer.toString(workers), "--hdfs"), "up");
        if (exit != 0) {
            throw new IllegalStateException("./granary up failed (" + exit + "):\n" + tail(state.resolve("up.out"))
                    + "\nservice logs: " + state.resolve("logs"));
        }
    }

    /** {@code ./granary mount DATASET DIR}: fails unless it mounted. */
    void mount(String dataset, Path dir) {
        Result result = granary("mount", dataset, dir.toString());
        if (result.exit() != 0) {
            throw new IllegalStateException("./granary mount failed (" + result.exit() + "): " + result.output());
        }
    }

    /** What one {@code ./granary} command answered: its exit code and everything it printed. */
    record Result(int exit, String output) {
    }

    Result granary(String... args) {
        String name = "cmd-" + System.nanoTime();
        int exit = run(List.of(args), name);
        try {
            return new Result(exit, Files.readString(state.resolve(name + ".out")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    long pid(String service) {
        try {
            return Long.parseLong(Files.readString(state.resolve("run").resolve(service + ".pid")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        int exit = run(List.of("down"), "down");
        if (exit != 0) {
            throw new IllegalStateException("./granary down failed (" + exit + "):\n" + tail(state.resolve("down.out")));
        }
    }

    private int run(List<String> args, String name) {
        try {
            Files.createDirectories(state);
            ProcessBuilder builder = new ProcessBuilder(concat(root.resolve("granary").toString(), args))
                    .directory(root.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(state.resolve(name + ".out").toFile());
            builder.environment().putAll(env);
            builder.environment().put("GRANARY_STATE_DIR", state.toString());
            Process process = builder.start();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("./granary " + name + " did not finish in 10 minutes");
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        return Stream.concat(Stream.of(first), rest.stream()).toList();
    }

    static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no " + file + ")";
        }
    }
}
