package io.granary.operator.runtime;

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
import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.INTEGER;
import static io.fabric8.crd.generator.annotation.AdditionalPrinterColumn.Type.STRING;

/**
 * The cache workers (Fluid's runtime): how many, and their levels, reconciled into the workers' StatefulSet of
 * {@code k8s/examples/autoscaling} in the resource's namespace. A scale-in drains the workers that go before they go.
 */
@Group(DatasetResource.GROUP)
@Version(DatasetResource.VERSION)
@Kind("CacheRuntime")
@Plural("cacheruntimes")
@Singular("cacheruntime")
@ShortNames("gcr")
@AdditionalPrinterColumn(name = "Replicas", jsonPath = ".status.replicas", type = INTEGER)
@AdditionalPrinterColumn(name = "Phase", jsonPath = ".status.phase", type = STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = DATE)
public class CacheRuntimeResource extends CustomResource<CacheRuntimeSpec, CacheRuntimeStatus> implements Namespaced {
}
