package io.granary.contracts.dataset;

/** A dataset as the API returns it, Kubernetes style: what was asked for and what is. */
public record Dataset(DatasetSpec spec, DatasetStatus status) {

    public String name() {
        return spec.name();
    }
}
