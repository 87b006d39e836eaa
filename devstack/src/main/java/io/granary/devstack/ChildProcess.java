package io.granary.devstack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A JVM started as a child process, its output in a log file, stopped by PID. A shutdown hook makes sure a
 * test JVM that dies early leaves no broker behind.
 */
final class ChildProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final Thread reaper;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.reaper = new Thread(this::stop, "devstack-stop-" + name);
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    static ChildProcess start(String name, List<String> jvmArgsAndMain, Path log) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmArgsAndMain);
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                .start();
        return new ChildProcess(name, process, log);
    }

    /** Runs a JVM to completion, for one-shot tools such as the Kafka storage formatter. */
    static void runToCompletion(String name, List<String> jvmArgsAndMain, Path log, Duration timeout) throws IOException {
        try (ChildProcess child = start(name, jvmArgsAndMain, log)) {
            if (!child.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IOException(name + " did not finish within " + timeout + "; see " + log);
            }
            if (child.process.exitValue() != 0) {
                throw new IOException(name + " failed with exit code " + child.process.exitValue() + ":\n" + child.tail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + name, e);
        }
    }

    /** Waits until {@code ready} holds; fails early, with the end of the log, if the child dies. */
    void awaitReady(BooleanSupplier ready, Duration timeout) throws IOException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IOException(name + " exited with code " + process.exitValue() + " before it was ready:\n" + tail());
            }
            if (ready.getAsBoolean()) {
                return;
            }
            sleep(200);
        }
        stop();
        throw new IOException(name + " was not ready within " + timeout + ":\n" + tail());
    }

    boolean logContains(String text) {
        try {
            return Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(text);
        } catch (IOException e) {
            return false;
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path log() {
        return log;
    }

    /** Kills the child at once (SIGKILL): no shutdown hook of its own runs, as when a node dies. */
    void kill() {
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Blocks until the child exits on its own. */
    int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing to remove
        }
    }

    private void stop() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
