package io.granary.gateway.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Configuration of the gateway, under {@code granary.gateway}. */
@ConfigMapping(prefix = "granary.gateway")
public interface GatewayConfig {

    /** The preload-service that owns DataLoads. */
    @WithDefault("http://127.0.0.1:8084")
    URI preloadUrl();

    /**
     * How long a management write (POST, PATCH) whose owner refuses connections, as while it restarts, waits for it
     * before it is answered 503: nothing was sent, so it is sent once the owner is back.
     */
    @WithDefault("5s")
    Duration ownerWait();

    Auth auth();

    Read read();

    Buckets buckets();

    /** Where uploads are staged before they go to the under-store and the cache. */
    @WithDefault(".granary/gateway/spool")
    Path spoolDir();

    /** Staged bodies and upload parts untouched this long are removed (abandoned uploads, dead requests). */
    @WithDefault("24h")
    Duration spoolMaxAge();

    interface Auth {

        /** Let unsigned S3 requests list and read every dataset, as an anonymous reader. */
        @WithDefault("false")
        boolean anonymous();
    }

    /** Where the buckets S3 clients create (CreateBucket) are kept: each is a dataset over a place of its own. */
    interface Buckets {

        /**
         * The under-store a new bucket goes under: {@code file:///dir} makes a directory per bucket in it (inside
         * {@code granary.allowed-roots}), {@code s3://bucket/prefix} a prefix per bucket. Unset: CreateBucket
         * answers NotImplemented and datasets are made through the management API only.
         */
        Optional<String> uri();

        /** The secret with the S3 keys of {@link #uri()}, as a dataset mount names it. */
        Optional<String> credentialsRef();

        /** The mount options of {@link #uri()}: {@code endpoint}, {@code region}, {@code pathStyle}. */
        Map<String, String> options();

        /** A new bucket is answered once its dataset is Bound, and given up on after this long. */
        @WithDefault("30s")
        Duration bindTimeout();
    }

    interface Read {

        /** Read a block file directly when its worker is on this node and its directory is visible here. */
        @WithDefault("true")
        boolean shortCircuit();

        /**
         * Block files kept open between reads (least recently read out first), one file descriptor each (and one
         * mapping for a file in memory), and never more than half the process's descriptor limit or half its
         * mapping limit ({@code vm.max_map_count}); 0 opens and closes a block's file for every read of it.
         */
        @WithDefault("65536")
        int openFiles();

        /**
         * A kept block file in memory at least this big is mapped and sent from the mapping; a smaller one, and any
         * file on disk, with sendfile. Measured here: a 64 MiB block goes out a third faster from its mapping, a
         * 128 KiB one costs the same warm and more cold (mapping, faulting and unmapping it per fill).
         */
        @WithDefault("4MiB")
        String mapAtLeast();
    }
}
