package io.granary.block.fill;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.block.config.BlockConfig;
import io.granary.contracts.dataset.DatasetSpec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.rest.client.inject.RestClient;

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

    /** @throws UnknownDatasetException when the metadata-service does not know the dataset */
    public DatasetSpec spec(String dataset) {
        return specs.get(dataset, this::fetch);
    }

    public void forget(String dataset) {
        specs.invalidate(dataset);
    }

    private DatasetSpec fetch(String dataset) {
        try {
            return metadata.dataset(dataset).spec().withDefaults();
        } catch (WebApplicationException e) {
            if (e.getResponse().getStatus() == 404) {
                throw new UnknownDatasetException(dataset);
            }
            throw e;
        }
    }
}
