package io.granary.operator.dataload;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import io.granary.operator.dataset.DatasetResource;

import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.DATE;
import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.STRING;

/** A DataLoad of a Dataset of the same namespace, run by Granary's preload-service; owned by its Dataset. */
@Group(DatasetResource.GROUP)
@Version(DatasetResource.VERSION)
@Kind("DataLoad")
@Plural("dataloads")
@Singular("dataload")
@ShortNames("gdl")
@AdditionalPrinterColumn(name = "Dataset", jsonPath = ".spec.dataset", type = STRING)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = STRING)
@AdditionalPrinterColumn(name = "Progress", jsonPath = ".status.progress", type = STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = DATE)
public class DataLoadResource extends CustomResource<DataLoadResourceSpec, DataLoadResourceStatus>
        implements Namespaced {
}
