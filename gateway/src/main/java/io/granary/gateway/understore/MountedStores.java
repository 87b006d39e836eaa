package io.granary.gateway.understore;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.dataset.MountedPath;
import io.granary.gateway.config.GatewayConfig;
import io.granary.ufs.CredentialsResolver;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.UnderStore;
import io.granary.ufs.UnderStores;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The under-stores behind datasets' mounts, opened once per mount (an S3 client is costly to make) and closed when
 * the dataset changes. The gateway needs them to write through, and to read around a dead worker.
 */
@ApplicationScoped
public class MountedStores {

    private final UnderStores stores;
    private final MeterRegistry metrics;
    private final Map<Mount, UnderStore> open = new ConcurrentHashMap<>();

    MountedStores(GatewayConfig config, MeterRegistry metrics) {
        this.stores = new UnderStores(config.allowedRoots().orElse(List.of()),
                CredentialsResolver.fromEnvironment(config.secretsDir().orElse(null)));
        this.metrics = metrics;
    }

    /** The store holding a dataset path, and the key inside it. */
    public Located locate(Dataset dataset, String path) {
        MountedPath mounted = MountedPath.resolve(dataset.spec().mounts(), path);
        if (mounted == null) {
            throw new ObjectNotFoundException(path);
        }
        return new Located(open.computeIfAbsent(mounted.mount(), stores::open), mounted.key());
    }

    public record Located(UnderStore store, String key) {
    }

    /** Counts an under-store request made by the gateway ({@code granary_gateway_ufs_requests_total{op}}). */
    public void count(String op) {
        metrics.counter("granary.gateway.ufs.requests", "op", op).increment();
    }

    /** The dataset's mounts may have changed: open them afresh next time. */
    public void forget(Dataset dataset) {
        for (Mount mount : dataset.spec().mounts()) {
            UnderStore store = open.remove(mount);
            if (store != null) {
                store.close();
            }
        }
    }

    @PreDestroy
    void close() {
        open.values().forEach(UnderStore::close);
        open.clear();
    }
}
