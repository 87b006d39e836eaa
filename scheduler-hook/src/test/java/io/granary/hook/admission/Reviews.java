package io.granary.hook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.restassured.http.ContentType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Base64;

import static io.restassured.RestAssured.given;

/**
 * AdmissionReviews as the API server sends them (a Job's pod CREATE, defaults and service-account volume
 * applied), posted over HTTPS; and the API server's half of the answer: applying the returned JSONPatch.
 */
final class Reviews {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Reviews() {
    }

    static ObjectNode podCreate() {
        try (InputStream in = Reviews.class.getResourceAsStream("/admission/pod-create.json")) {
            return (ObjectNode) JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode pod(ObjectNode review) {
        return (ObjectNode) review.get("request").get("object");
    }

    static ObjectNode label(ObjectNode review, String key, String value) {
        ((ObjectNode) pod(review).get("metadata").get("labels")).put(key, value);
        return review;
    }

    static ObjectNode annotate(ObjectNode review, String key, String value) {
        ((ObjectNode) pod(review).get("metadata").get("annotations")).put(key, value);
        return review;
    }

    /** The pod the API server would get: a copy of the one in the review with the webhook's patch applied. */
    static ObjectNode patched(ObjectNode review, JsonNode answer) {
        ObjectNode pod = pod(review).deepCopy();
        JsonNode patch = patch(answer);
        return patch == null ? pod : (ObjectNode) JsonPatch.apply(patch, pod);
    }

    /** The same review again with the patched pod: what the API server sends when it reinvokes the webhook. */
    static ObjectNode reinvocation(ObjectNode review, ObjectNode patchedPod) {
        ObjectNode again = review.deepCopy();
        ((ObjectNode) again.get("request")).set("object", patchedPod);
        return again;
    }

    static JsonNode patch(JsonNode answer) {
        JsonNode encoded = answer.path("response").path("patch");
        if (encoded.isMissingNode() || encoded.isNull()) {
            return null;
        }
        try {
            return JSON.readTree(Base64.getDecoder().decode(encoded.asText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode post(URL url, JsonNode review) {
        String body = given().relaxedHTTPSValidation().contentType(ContentType.JSON).body(review.toString())
                .when().post(url)
                .then().statusCode(200).contentType(ContentType.JSON).extract().asString();
        return read(body);
    }

    static JsonNode read(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
