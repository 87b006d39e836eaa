package io.granary.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The classpath of the child JVMs: this module's runtime dependencies as resolved by Maven at build time
 * (written to {@code devstack.classpath}), so the broker's Scala, the S3 server and HDFS never load into a
 * service, nor Hadoop into the broker.
 */
final class ChildClasspath {

    private static final String RESOURCE = "devstack.classpath";

    private ChildClasspath() {
    }

    static String kafka() {
        return String.join(java.io.File.pathSeparator, entries().stream().filter(entry -> !hadoop(entry)).toList());
    }

    /** Hadoop's shaded client and minicluster jars, the few libraries they leave unshaded, and this module. */
    static String hdfs() {
        List<String> classpath = new java.util.ArrayList<>(entries().stream().filter(entry -> hadoop(entry)
                || name(entry).matches("(slf4j-api|commons-logging|jsr305|snappy-java)-.*")).toList());
        classpath.add(ownLocation().toString());
        return String.join(java.io.File.pathSeparator, classpath);
    }

    private static boolean hadoop(String entry) {
        return name(entry).startsWith("hadoop-client-");
    }

    private static String name(String entry) {
        return Path.of(entry).getFileName().toString();
    }

    static Path s3proxyJar() {
        return entries().stream()
                .filter(entry -> Path.of(entry).getFileName().toString().startsWith("s3proxy-"))
                .map(Path::of)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("s3proxy is missing from " + RESOURCE));
    }

    /** Where this module's own classes are: a jar in a repository or target/classes. */
    static Path ownLocation() {
        try {
            return Path.of(ChildClasspath.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> entries() {
        try (InputStream in = ChildClasspath.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing: build the devstack module with Maven first");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return Arrays.stream(text.split(java.io.File.pathSeparator)).filter(s -> !s.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
