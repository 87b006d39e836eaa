package io.granary.gateway.write;

import java.nio.file.Path;

/** A request body, decoded and checked, on the gateway's disk. */
record Spooled(Path file, long size) {
}
