package io.granary.operator.events;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.events.Topics;
import io.granary.kit.events.KafkaEvents;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Incoming;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Granary's own events, turned into reconciles of the resources they concern: a dataset listed, changed or
 * deleted reconciles its Dataset; a DataLoad's progress reconciles its DataLoad. So a resource's status follows
 * Granary as it changes, and nobody polls every dataset every second. The reconcilers say which resource stands
 * for which Granary name or load ({@link #watchDataset}, {@link #watchLoad}); a message that is not an event goes
 * to {@code granary.deadletter} with the reason, and the consumer carries on.
 */
@ApplicationScoped
public class GranaryEvents {

    private final KafkaEvents events;
    private volatile SimpleInboundEventSource<?> datasets = new SimpleInboundEventSource<>();
    private volatile SimpleInboundEventSource<?> loads = new SimpleInboundEventSource<>();
    private final Map<String, ResourceID> datasetResources = new ConcurrentHashMap<>();
    private final Map<String, ResourceID> loadResources = new ConcurrentHashMap<>();

    GranaryEvents(KafkaEvents events) {
        this.events = events;
    }

    @Incoming(Topics.DATASET_EVENTS)
    public void onDatasetEvent(String message) {
        events.consume(Topics.DATASET_EVENTS, message, DatasetEvent.class, event -> {
            if (event.dataset() != null) {
                propagate(datasets, datasetResources.get(event.dataset()));
            }
        });
    }

    @Incoming(Topics.PRELOAD_STATUS)
    public void onLoadStatus(String message) {
        events.consume(Topics.PRELOAD_STATUS, message, DataLoadStatus.class,
                status -> propagate(loads, loadResources.get(status.id())));
    }

    /** A new event source for the Dataset reconciler (one per operator started: a source serves one controller). */
    public <P extends HasMetadata> SimpleInboundEventSource<P> newDatasetSource() {
        SimpleInboundEventSource<P> source = new SimpleInboundEventSource<>("granary-datasets");
        datasets = source;
        return source;
    }

    public <P extends HasMetadata> SimpleInboundEventSource<P> newLoadSource() {
        SimpleInboundEventSource<P> source = new SimpleInboundEventSource<>("granary-dataloads");
        loads = source;
        return source;
    }

    public void watchDataset(String granaryName, ResourceID resource) {
        datasetResources.put(granaryName, resource);
    }

    public void forgetDataset(String granaryName) {
        datasetResources.remove(granaryName);
    }

    public void watchLoad(String loadId, ResourceID resource) {
        loadResources.put(loadId, resource);
    }

    public void forgetLoad(String loadId) {
        loadResources.remove(loadId);
    }

    private static void propagate(SimpleInboundEventSource<?> source, ResourceID resource) {
        if (resource != null && source.isRunning()) {
            source.propagateEvent(resource);
        }
    }
}
