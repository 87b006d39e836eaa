package io.granary.operator.dataset;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.DATE;
import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.INTEGER;
import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.STRING;

/**
 * A Granary dataset as a Kubernetes resource ({@code kubectl get datasets}), and a PersistentVolumeClaim of the same
 * name that mounts it. The Granary dataset it stands for is named {@link GranaryNames#of namespace-name}.
 */
@Group(DatasetResource.GROUP)
@Version(DatasetResource.VERSION)
@Kind("Dataset")
@Plural("datasets")
@Singular("dataset")
@ShortNames("gds")
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = STRING)
@AdditionalPrinterColumn(name = "Files", jsonPath = ".status.files", type = INTEGER)
@AdditionalPrinterColumn(name = "Size", jsonPath = ".status.size", type = STRING)
@AdditionalPrinterColumn(name = "Cached", jsonPath = ".status.cached", type = STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = DATE)
public class DatasetResource extends CustomResource<DatasetResourceSpec, DatasetResourceStatus> implements Namespaced {

    public static final String GROUP = "granary.io";
    public static final String VERSION = "v1alpha1";
    /** A Dataset labelled so may take over a Granary dataset of its name that was made outside Kubernetes. */
    public static final String ADOPT_LABEL = "granary.io/adopt";

    /** Whether this resource may take over a Granary dataset it did not make. */
    public boolean adopts() {
        return getMetadata().getLabels() != null && "true".equals(getMetadata().getLabels().get(ADOPT_LABEL));
    }
}
