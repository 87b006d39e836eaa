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
 * (written to {@code devstack.classpath}), so the broker's Scala and the S3 server never load into a service.
 */
final class ChildClasspath {

    private static final String RESOURCE = "devstack.classpath";

    private ChildClasspath() {
    }

    static String kafka() {
        return String.join(java.io.File.pathSeparator, entries());
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
