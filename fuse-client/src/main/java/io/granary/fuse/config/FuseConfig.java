package io.granary.fuse.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Configuration of one FUSE mount, under {@code granary.fuse}; how blocks are read: {@code granary.read}. */
@ConfigMapping(prefix = "granary.fuse")
public interface FuseConfig {

    /** Where the datasets appear. Must be an existing, empty directory that is not mounted on already. */
    Path mountPoint();

    /** The one dataset mounted at the mount point; unset: every dataset, each a directory of the mount point. */
    Optional<String> dataset();

    /**
     * How long the kernel and this client trust a file's attributes and a name's existence. Datasets change only
     * by sync and by writes, which dataset events announce: this client forgets at once, the kernel after this.
     */
    @WithDefault("5m")
    Duration attrTimeout();

    /**
     * Requests the kernel may have in flight to this client at once, read-ahead included (the kernel's default,
     * 12, is too few for a DataLoader with many workers).
     */
    @WithDefault("64")
    int backgroundRequests();

    /**
     * The kernel's read-ahead for this mount. libfuse 2 hands reads over in requests of 128 KiB; a larger window
     * has several of them in flight for one sequential reader, served by several threads. 0 keeps the kernel's.
     */
    @WithDefault("1MiB")
    String kernelReadAhead();

    /**
     * Memory for blocks read from workers on other nodes or the under-store (blocks of workers on this node are read
     * from their files). Keep it well under the heap: a block is held whole.
     */
    @WithDefault("64MiB")
    String blockCache();

    Writes writes();

    /** Files written through the mount (checkpoints) go to the gateway's S3 API when they are closed. */
    interface Writes {

        /** The gateway, which writes them through to the under-store and into the cache. */
        @WithDefault("http://127.0.0.1:8080")
        URI gatewayUrl();

        /** The secret (as a credentialsRef) whose key pair signs the uploads; unset: the mount is read-only. */
        Optional<String> credentialsRef();

        /** Where a file is staged while it is written, until it is closed and uploaded. */
        @WithDefault(".granary/fuse/staging")
        Path stagingDir();
    }
}
