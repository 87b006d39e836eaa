package io.granary.operator.status;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Kubernetes Events for a resource's Ready condition when it changes, so {@code kubectl describe dataset} and
 * {@code kubectl get events} tell its story: Normal when it became ready, Warning when it stopped being. An Event
 * that cannot be written is logged and never fails a reconcile.
 */
public final class ResourceEvents {

    private static final Logger LOG = Logger.getLogger(ResourceEvents.class);
    private static final String COMPONENT = "granary-operator";

    private ResourceEvents() {
    }

    /** Records the Ready condition of {@code after} if its status or reason differs from {@code before}'s. */
    public static void readyChanged(KubernetesClient client, HasMetadata resource, List<Condition> before,
                                    List<Condition> after) {
        Condition was = ready(before);
        Condition now = ready(after);
        if (now == null || was != null && Objects.equals(was.status(), now.status())
                && Objects.equals(was.reason(), now.reason())) {
            return;
        }
        String time = Instant.now().toString();
        try {
            client.v1().events().inNamespace(resource.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withName(resource.getMetadata().getName() + "." + UUID.randomUUID())
                    .withNamespace(resource.getMetadata().getNamespace()).endMetadata()
                    .withNewInvolvedObject().withApiVersion(resource.getApiVersion()).withKind(resource.getKind())
                    .withName(resource.getMetadata().getName()).withNamespace(resource.getMetadata().getNamespace())
                    .withUid(resource.getMetadata().getUid()).endInvolvedObject()
                    .withType("True".equals(now.status()) ? "Normal" : "Warning")
                    .withReason(now.reason()).withMessage(now.message())
                    .withNewSource().withComponent(COMPONENT).endSource()
                    .withFirstTimestamp(time).withLastTimestamp(time).withCount(1)
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.debugf("no Event for %s %s: %s", resource.getKind(), resource.getMetadata().getName(), e.getMessage());
        }
    }

    private static Condition ready(List<Condition> conditions) {
        return conditions == null ? null : conditions.stream().filter(c -> c.type().equals(Condition.READY))
                .findFirst().orElse(null);
    }
}
