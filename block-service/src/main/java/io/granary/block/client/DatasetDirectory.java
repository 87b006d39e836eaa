package io.granary.block.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.block.config.BlockConfig;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.rest.DatasetNotFoundException;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Datasets' definitions (mounts, block size), asked of the metadata-service once and kept for {@code dataset-ttl};
 * dataset events drop an entry as soon as it changes. Only misses need it: hits never leave the worker. Each
 * dataset's cache share is also kept apart, for as long as the worker runs: the store asks it under its eviction
 * lock, of datasets that may not have been read for hours.
 */
@ApplicationScoped
public class DatasetDirectory {

    private static final Logger LOG = Logger.getLogger(DatasetDirectory.class);

    private final MetadataClient metadata;
    private final Cache<String, DatasetSpec> specs;
    private final Map<String, Double> shares = new ConcurrentHashMap<>();
    private final Set<String> asking = ConcurrentHashMap.newKeySet();

    DatasetDirectory(@RestClient MetadataClient metadata, BlockConfig config) {
        this.metadata = metadata;
        this.specs = Caffeine.newBuilder().expireAfterWrite(config.datasetTtl()).maximumSize(10_000).build();
    }

    /** @throws DatasetNotFoundException when the metadata-service does not know the dataset */
    public DatasetSpec spec(String dataset) {
        return specs.get(dataset, name -> {
            DatasetSpec spec = metadata.findDataset(name).orElseThrow(() -> new DatasetNotFoundException(name)).spec()
                    .withDefaults();
            shares.put(name, spec.cacheShareOrNone());
            return spec;
        });
    }

    /**
     * The dataset's cache share, from memory: one not known yet (a worker restarted with its blocks) counts as none
     * and is asked for in the background.
     */
    public double share(String dataset) {
        Double share = shares.get(dataset);
        if (share != null) {
            return share;
        }
        if (asking.add(dataset)) {
            CompletableFuture.runAsync(() -> {
                try {
                    spec(dataset);
                } catch (RuntimeException e) {
                    LOG.debugf("the share of dataset %s is not known yet: %s", dataset, e.getMessage());
                } finally {
                    asking.remove(dataset);
                }
            });
        }
        return 0;
    }

    /** The definition as known now, without asking: the one an event is about to replace. */
    public Optional<DatasetSpec> cached(String dataset) {
        return Optional.ofNullable(specs.getIfPresent(dataset));
    }

    public void forget(String dataset) {
        specs.invalidate(dataset);
    }
}
