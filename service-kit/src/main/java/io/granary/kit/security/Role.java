package io.granary.kit.security;

import java.util.Locale;

/** What a caller may do; each role may do all that the ones before it may. */
public enum Role {
    /** List datasets and files, read objects, follow DataLoads. */
    READER,
    /** Also write and delete objects, start and cancel DataLoads. */
    WRITER,
    /** Also create, delete and sync datasets, free caches, see and drain workers. */
    ADMIN,
    /** Granary's own services: also the internal APIs (a worker's blocks, the metadata-service's refreshes). */
    CLUSTER;

    public boolean allows(Role needed) {
        return compareTo(needed) >= 0;
    }

    /** @throws IllegalArgumentException naming the roles an identity may have */
    public static Role parse(String name) {
        return switch (name == null ? "" : name.toLowerCase(Locale.ROOT)) {
            case "reader" -> READER;
            case "writer" -> WRITER;
            case "admin" -> ADMIN;
            default -> throw new IllegalArgumentException("role '" + name + "' is not reader, writer or admin");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
