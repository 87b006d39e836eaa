package io.granary.metadata.metrics;

import io.granary.metadata.store.DatasetRegistry;
import io.granary.metadata.store.FileTree;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/** {@code granary_metadata_datasets} and {@code granary_metadata_files}: what the metadata cache holds. */
@ApplicationScoped
public class MetadataGauges {

    void register(@Observes StartupEvent start, MeterRegistry metrics, DatasetRegistry datasets, FileTree files) {
        Gauge.builder("granary.metadata.datasets", datasets, DatasetRegistry::count)
                .description("Datasets known").register(metrics);
        Gauge.builder("granary.metadata.files", files, FileTree::totalCount)
                .description("File entries in the metadata cache").register(metrics);
    }
}
