package io.granary.k8s;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;

import java.util.List;
import java.util.Map;

/**
 * The Prometheus Operator's PodMonitor, by which examples/autoscaling has the metadata-service scraped. Typed with
 * exactly the fields k8s/ uses, so a misspelled one fails to parse (as in {@link CertManager}).
 */
final class PrometheusOperator {

    private PrometheusOperator() {
    }

    @Group("monitoring.coreos.com")
    @Version("v1")
    @Kind("PodMonitor")
    public static final class PodMonitor extends CustomResource<PodMonitorSpec, Void> implements Namespaced {
    }

    /** Pods of the PodMonitor's namespace that the selector selects. */
    public record PodMonitorSpec(Selector selector, List<PodMetricsEndpoint> podMetricsEndpoints) {
    }

    public record Selector(Map<String, String> matchLabels) {
    }

    /** @param port the name of a container port */
    public record PodMetricsEndpoint(String port, String path, String interval) {
    }
}
