package io.granary.operator.status;

import io.fabric8.kubernetes.api.model.HasMetadata;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Sets a condition in a list as Kubernetes does: the transition time moves only when the status does. */
public final class Conditions {

    private Conditions() {
    }

    public static List<Condition> ready(List<Condition> known, HasMetadata resource, String reason, String message) {
        return set(known, resource, Condition.READY, true, reason, message);
    }

    public static List<Condition> notReady(List<Condition> known, HasMetadata resource, String reason,
                                           String message) {
        return set(known, resource, Condition.READY, false, reason, message);
    }

    static List<Condition> set(List<Condition> known, HasMetadata resource, String type, boolean status,
                               String reason, String message) {
        String value = status ? "True" : "False";
        List<Condition> conditions = new ArrayList<>();
        String since = Instant.now().toString();
        for (Condition condition : known == null ? List.<Condition>of() : known) {
            if (condition.type().equals(type)) {
                if (condition.status().equals(value)) {
                    since = condition.lastTransitionTime();
                }
            } else {
                conditions.add(condition);
            }
        }
        conditions.add(new Condition(type, value, reason, message, since, resource.getMetadata().getGeneration()));
        return List.copyOf(conditions);
    }

    /** The Ready condition's reason, or null. */
    public static String readyReason(List<Condition> conditions) {
        return conditions == null ? null : conditions.stream().filter(c -> c.type().equals(Condition.READY))
                .map(Condition::reason).findFirst().orElse(null);
    }
}
