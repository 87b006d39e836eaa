package io.granary.metadata.understore;

import io.granary.contracts.dataset.Mount;
import io.granary.metadata.config.MetadataConfig;
import io.granary.ufs.CredentialsResolver;
import io.granary.ufs.ListPage;
import io.granary.ufs.ObjectInfo;
import io.granary.ufs.UnderStore;
import io.granary.ufs.UnderStores;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.InputStream;
import java.util.List;

/**
 * Opens the under-stores of dataset mounts, counting every request made to them
 * ({@code granary_ufs_requests_total{op}}): listing datasets must not touch them after the initial load, and
 * this counter is how that is shown.
 */
@ApplicationScoped
public class CountedUnderStores {

    private final UnderStores stores;
    private final MeterRegistry metrics;

    CountedUnderStores(MetadataConfig config, MeterRegistry metrics) {
        this.stores = new UnderStores(config.allowedRoots().orElse(List.of()),
                CredentialsResolver.fromEnvironment(config.secretsDir().orElse(null)));
        this.metrics = metrics;
    }

    public UnderStore open(Mount mount) {
        return new Counted(stores.open(mount));
    }

    /** Opens the mount and probes it once; throws with a reason fit to show the user (never a secret). */
    public void check(Mount mount) {
        try (UnderStore store = open(mount)) {
            store.probe();
        }
    }

    private void count(String op) {
        metrics.counter("granary.ufs.requests", "op", op).increment();
    }

    private final class Counted implements UnderStore {

        private final UnderStore store;

        Counted(UnderStore store) {
            this.store = store;
        }

        @Override
        public ObjectInfo stat(String path) {
            count("stat");
            return store.stat(path);
        }

        @Override
        public ListPage list(String prefix, String delimiter, String cursor, int limit) {
            count("list");
            return store.list(prefix, delimiter, cursor, limit);
        }

        @Override
        public InputStream read(String path, long offset, long length) {
            count("read");
            return store.read(path, offset, length);
        }

        @Override
        public InputStream read(String path, String etag, long offset, long length) {
            count("read");
            return store.read(path, etag, offset, length);
        }

        @Override
        public ObjectInfo write(String path, InputStream content, long size) {
            count("write");
            return store.write(path, content, size);
        }

        @Override
        public void delete(String path) {
            count("delete");
            store.delete(path);
        }

        @Override
        public void probe() {
            count("probe");
            store.probe();
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
