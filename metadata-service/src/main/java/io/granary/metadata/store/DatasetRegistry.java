package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataset.Dataset;
import org.infinispan.Cache;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Datasets by name: the spec as created and the status the metadata-service keeps (phase, counts, sync time). */
public final class DatasetRegistry {

    private final Cache<String, String> datasets;
    private final ObjectMapper json;

    public DatasetRegistry(Cache<String, String> datasets, ObjectMapper json) {
        this.datasets = datasets;
        this.json = json;
    }

    /** @return false when a dataset of that name exists already */
    public boolean create(Dataset dataset) {
        return datasets.putIfAbsent(dataset.name(), CacheJson.write(json, dataset)) == null;
    }

    public Optional<Dataset> get(String name) {
        String value = datasets.get(name);
        return value == null ? Optional.empty() : Optional.of(CacheJson.read(json, value, Dataset.class));
    }

    public List<Dataset> all() {
        return datasets.values().stream().map(value -> CacheJson.read(json, value, Dataset.class))
                .sorted(Comparator.comparing(Dataset::name)).toList();
    }

    public int count() {
        return datasets.size();
    }

    /** Applies {@code change} unless the dataset was deleted meanwhile; retried if another replica wrote first. */
    public Optional<Dataset> update(String name, UnaryOperator<Dataset> change) {
        while (true) {
            String old = datasets.get(name);
            if (old == null) {
                return Optional.empty();
            }
            Dataset updated = change.apply(CacheJson.read(json, old, Dataset.class));
            if (datasets.replace(name, old, CacheJson.write(json, updated))) {
                return Optional.of(updated);
            }
        }
    }

    public boolean delete(String name) {
        return datasets.remove(name) != null;
    }
}
