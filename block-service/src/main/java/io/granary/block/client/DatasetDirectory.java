package io.granary.block.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.block.config.BlockConfig;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.rest.DatasetNotFoundException;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.util.Optional;

/**
 * Datasets' definitions (mounts, block size), asked of the metadata-service once and kept for {@code dataset-ttl};
 * dataset events drop an entry as soon as it changes. Only misses need it: hits never leave the worker.
 */
@ApplicationScoped
public class DatasetDirectory {

    private final MetadataClient metadata;
    private final Cache<String, DatasetSpec> specs;

    DatasetDirectory(@RestClient MetadataClient metadata, BlockConfig config) {
        this.metadata = metadata;
        this.specs = Caffeine.newBuilder().expireAfterWrite(config.datasetTtl()).maximumSize(10_000).build();
    }

    /** @throws DatasetNotFoundException when the metadata-service does not know the dataset */
    public DatasetSpec spec(String dataset) {
        return specs.get(dataset, name -> metadata.findDataset(name)
                .orElseThrow(() -> new DatasetNotFoundException(name)).spec().withDefaults());
    }

    /** The definition as known now, without asking: the one an event is about to replace. */
    public Optional<DatasetSpec> cached(String dataset) {
        return Optional.ofNullable(specs.getIfPresent(dataset));
    }

    public void forget(String dataset) {
        specs.invalidate(dataset);
    }
}
