package io.granary.hook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequest;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.DiffFlags;
import io.fabric8.zjsonpatch.JsonDiff;
import io.granary.contracts.validation.ValidationException;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/** AdmissionReview {@code admission.k8s.io/v1} in and out, with fabric8's model of it. */
final class AdmissionReviews {

    static final String API_VERSION = "admission.k8s.io/v1";
    private static final String KIND = "AdmissionReview";

    private final KubernetesSerialization serialization = new KubernetesSerialization();

    /** The request of a well-formed review; anything else is the caller's mistake, named by field. */
    AdmissionRequest request(String body) {
        if (body == null || body.isBlank()) {
            throw new ValidationException("body", "an AdmissionReview is required");
        }
        AdmissionReview review;
        try {
            review = serialization.unmarshal(body, AdmissionReview.class);
        } catch (RuntimeException e) {
            throw new ValidationException("body", "is not an AdmissionReview in JSON (" + rootMessage(e) + ")");
        }
        if (!API_VERSION.equals(review.getApiVersion())) {
            throw new ValidationException("apiVersion", "must be " + API_VERSION + ", was " + review.getApiVersion());
        }
        if (!KIND.equals(review.getKind())) {
            throw new ValidationException("kind", "must be " + KIND + ", was " + review.getKind());
        }
        AdmissionRequest request = review.getRequest();
        if (request == null) {
            throw new ValidationException("request", "is required");
        }
        if (request.getUid() == null || request.getUid().isBlank()) {
            throw new ValidationException("request.uid", "is required");
        }
        return request;
    }

    static boolean isPodCreate(AdmissionRequest request) {
        return request.getKind() != null && "Pod".equals(request.getKind().getKind())
                && (request.getKind().getGroup() == null || request.getKind().getGroup().isEmpty())
                && "CREATE".equals(request.getOperation());
    }

    Pod pod(AdmissionRequest request) {
        if (request.getObject() == null) {
            throw new ValidationException("request.object", "is required for a Pod CREATE");
        }
        Pod pod;
        try {
            pod = serialization.convertValue(request.getObject(), Pod.class);
        } catch (RuntimeException e) {
            throw new ValidationException("request.object", "is not a Pod (" + rootMessage(e) + ")");
        }
        if (pod.getMetadata() == null || pod.getSpec() == null) {
            throw new ValidationException("request.object", "a Pod needs metadata and spec");
        }
        return pod;
    }

    Pod copy(Pod pod) {
        return serialization.clone(pod);
    }

    /** Allows the pod as it is. */
    String allow(AdmissionRequest request, List<String> warnings) {
        return respond(request, null, warnings);
    }

    /**
     * Allows the pod with the changes between {@code before} and {@code after} as an RFC 6902 patch. Both come
     * from the same model, so the patch touches exactly what was changed and nothing the API server sent that
     * the model may render differently. No copy or move operations: plain add and replace read best in audits.
     */
    String allow(AdmissionRequest request, Pod before, Pod after, List<String> warnings) {
        JsonNode patch = JsonDiff.asJson(serialization.convertValue(before, JsonNode.class),
                serialization.convertValue(after, JsonNode.class), DiffFlags.dontNormalizeOpIntoMoveAndCopy());
        return respond(request, patch.isEmpty() ? null : patch.toString(), warnings);
    }

    private String respond(AdmissionRequest request, String patch, List<String> warnings) {
        AdmissionResponse response = new AdmissionResponse();
        response.setUid(request.getUid());
        response.setAllowed(true);
        if (patch != null) {
            response.setPatchType("JSONPatch");
            response.setPatch(Base64.getEncoder().encodeToString(patch.getBytes(StandardCharsets.UTF_8)));
        }
        if (!warnings.isEmpty()) {
            response.setWarnings(List.copyOf(warnings));
        }
        AdmissionReview review = new AdmissionReview();
        review.setApiVersion(API_VERSION);
        review.setKind(KIND);
        review.setResponse(response);
        return serialization.asJson(review);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
