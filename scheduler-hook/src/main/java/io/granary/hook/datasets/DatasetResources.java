package io.granary.hook.datasets;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.granary.hook.client.KubernetesApi;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator's Dataset resources, watched, so a pod's {@code granary.io/dataset: imagenet} names the Dataset
 * {@code imagenet} of the pod's own namespace when there is one: its Granary dataset is {@code <namespace>-imagenet}.
 * A name no Dataset of the namespace has is taken as a Granary dataset's own (one made with the CLI or S3).
 */
@ApplicationScoped
public class DatasetResources {

    public static final ResourceDefinitionContext DATASETS = new ResourceDefinitionContext.Builder()
            .withGroup("granary.io").withVersion("v1alpha1").withKind("Dataset").withPlural("datasets")
            .withNamespaced(true).build();
    private static final long RESYNC_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private final KubernetesApi api;
    private volatile SharedIndexInformer<GenericKubernetesResource> datasets;

    DatasetResources(KubernetesApi api) {
        this.api = api;
    }

    void start(@Observes StartupEvent event) {
        api.client().ifPresent(client -> {
            datasets = client.genericKubernetesResources(DATASETS).inAnyNamespace().runnableInformer(RESYNC_MILLIS);
            KubernetesApi.keepWatching(datasets, "Datasets", client);
        });
    }

    void stop(@Observes ShutdownEvent event) {
        if (datasets != null) {
            datasets.close();
        }
    }

    /** The Granary dataset a pod of {@code namespace} means by {@code name}. */
    public String granaryName(String namespace, String name) {
        SharedIndexInformer<GenericKubernetesResource> informer = datasets;
        if (informer == null || namespace == null) {
            return name;
        }
        GenericKubernetesResource dataset = informer.getStore().getByKey(namespace + "/" + name);
        if (dataset == null) {
            return name;
        }
        Object status = dataset.getAdditionalProperties().get("status");
        if (status instanceof Map<?, ?> fields && fields.get("granaryName") instanceof String granaryName) {
            return granaryName;
        }
        return namespace + "-" + name;  // the operator's rule, before it has written the status
    }
}
