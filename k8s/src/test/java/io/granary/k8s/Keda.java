package io.granary.k8s;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;

import java.util.List;
import java.util.Map;

/**
 * KEDA's ScaledObject, which scales the workers of examples/autoscaling. fabric8 has no model for it; typed here with
 * exactly the fields k8s/ uses, so a misspelled one fails to parse (as in {@link CertManager}).
 */
final class Keda {

    private Keda() {
    }

    @Group("keda.sh")
    @Version("v1alpha1")
    @Kind("ScaledObject")
    public static final class ScaledObject extends CustomResource<ScaledObjectSpec, Void> implements Namespaced {
    }

    public record ScaledObjectSpec(ScaleTargetRef scaleTargetRef, Integer minReplicaCount, Integer maxReplicaCount,
                                   List<Trigger> triggers, Advanced advanced) {
    }

    /** Unset, apiVersion is apps/v1 and kind Deployment. */
    public record ScaleTargetRef(String apiVersion, String kind, String name) {
    }

    /**
     * @param metricType how the HPA reads the value: {@code AverageValue} (unset) divides it among the pods,
     *                   {@code Value} takes it whole
     * @param metadata   the scaler's settings, strings all (a threshold too)
     */
    public record Trigger(String type, String name, String metricType, Map<String, String> metadata) {
    }

    public record Advanced(HorizontalPodAutoscalerConfig horizontalPodAutoscalerConfig) {
    }

    public record HorizontalPodAutoscalerConfig(Behavior behavior) {
    }

    /** The HPA's own (autoscaling/v2), passed on as it is. */
    public record Behavior(ScalingRules scaleUp, ScalingRules scaleDown) {
    }

    public record ScalingRules(Integer stabilizationWindowSeconds, List<ScalingPolicy> policies) {
    }

    /** At most {@code value} pods (type Pods) or percent (Percent) per {@code periodSeconds}. */
    public record ScalingPolicy(String type, Integer value, Integer periodSeconds) {
    }
}
