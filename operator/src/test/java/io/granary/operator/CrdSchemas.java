package io.granary.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.ValidationMessage;
import io.fabric8.kubernetes.api.model.HasMetadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The generated CRDs ({@code k8s/crds/}) as JSON schemas, to check a resource as the API server would before it
 * stores it: types, patterns, bounds, required fields, and no field the schema does not name (kubectl's default
 * strict field validation refuses those). What a schema cannot say, its CEL rules ({@code x-kubernetes-validations}),
 * is not checked here; the operator checks the same again.
 */
public final class CrdSchemas {

    public static final Path CRDS = Path.of("..", "k8s", "crds");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Draft 4 (the OpenAPI v3 schemas of CRDs are its dialect); Kubernetes' own keywords are known, not checked. */
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.builder()
            .defaultMetaSchemaIri(JsonMetaSchema.getV4().getIri())
            .metaSchema(JsonMetaSchema.builder(JsonMetaSchema.getV4())
                    .keyword(new NonValidationKeyword("x-kubernetes-validations"))
                    .keyword(new NonValidationKeyword("x-kubernetes-preserve-unknown-fields"))
                    .keyword(new NonValidationKeyword("x-kubernetes-int-or-string"))
                    .build())
            .build();

    private final Map<String, JsonSchema> byKind = new TreeMap<>();

    private CrdSchemas() {
    }

    public static CrdSchemas load() {
        CrdSchemas schemas = new CrdSchemas();
        try (Stream<Path> files = Files.list(CRDS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                JsonNode crd = YAML.readTree(file.toFile());
                String kind = crd.at("/spec/names/kind").asText();
                JsonNode version = crd.at("/spec/versions/0");
                ObjectNode schema = version.at("/schema/openAPIV3Schema").deepCopy();
                ObjectNode properties = (ObjectNode) schema.get("properties");
                properties.putObject("apiVersion").put("type", "string")
                        .put("pattern", "^" + crd.at("/spec/group").asText() + "/" + version.get("name").asText() + "$");
                properties.putObject("kind").put("type", "string").put("pattern", "^" + kind + "$");
                properties.putObject("metadata").put("type", "object");
                strict(schema);
                schemas.byKind.put(kind, FACTORY.getSchema(schema));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return schemas;
    }

    public Set<String> kinds() {
        return byKind.keySet();
    }

    /** What the API server would refuse in this document: empty when it would store it. */
    public List<String> refusals(JsonNode document) {
        JsonSchema schema = byKind.get(document.path("kind").asText());
        if (schema == null) {
            return List.of("no CRD has the kind '" + document.path("kind").asText() + "'");
        }
        return schema.validate(withoutNulls(document)).stream().map(ValidationMessage::getMessage).sorted().toList();
    }

    /** The API server drops a null where the schema does not say {@code nullable}, before it validates. */
    private static JsonNode withoutNulls(JsonNode document) {
        JsonNode copy = document.deepCopy();
        prune(copy);
        return copy;
    }

    private static void prune(JsonNode node) {
        if (node instanceof ObjectNode object) {
            List<String> nulls = new ArrayList<>();
            object.fields().forEachRemaining(field -> {
                if (field.getValue().isNull()) {
                    nulls.add(field.getKey());
                } else {
                    prune(field.getValue());
                }
            });
            object.remove(nulls);
        } else if (node.isArray()) {
            node.forEach(CrdSchemas::prune);
        }
    }

    public List<String> refusals(HasMetadata resource) {
        return refusals((JsonNode) JSON.valueToTree(resource));
    }

    public List<String> refusals(String yaml) {
        try {
            return refusals(YAML.readTree(yaml));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every object that names its properties takes no others, as strict field validation has it. */
    private static void strict(JsonNode schema) {
        if (schema instanceof ObjectNode object && object.has("properties")
                && !object.has("additionalProperties") && !object.has("x-kubernetes-preserve-unknown-fields")) {
            object.put("additionalProperties", false);
        }
        for (Iterator<JsonNode> children = schema.elements(); children.hasNext(); ) {
            strict(children.next());
        }
    }
}
