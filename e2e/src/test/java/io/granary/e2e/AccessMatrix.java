package io.granary.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Who may make which call, written down here on its own (not read from the services' rules), and checked against
 * every operation of every service's OpenAPI document: each caller gets 401, 403, or an answer past the guard. An
 * operation this table does not know fails the check, so a new route must say who may call it.
 */
final class AccessMatrix {

    enum Role { READER, WRITER, ADMIN, CLUSTER }

    /**
     * Which datasets an operation concerns: the one its path names, all of them, the one its body names, or the
     * caller's own (the answer leaves out the others; an id first has to find something).
     */
    enum Scope { DATASET, GLOBAL, BODY, OWN }

    record Expectation(Role needs, Scope scope) {
    }

    /** A caller: its bearer token (null: none), role (null: not a known identity) and datasets (empty: all). */
    record Caller(String name, String token, Role role, Set<String> datasets) {
    }

    /** The dataset every path and body names: nothing exists by that name, so no allowed call changes a thing. */
    static final String DATASET = "absent";

    static final Map<String, Expectation> EXPECTED = new LinkedHashMap<>();

    static {
        expect("GET /api/v1/datasets", Role.READER, Scope.OWN);
        expect("POST /api/v1/datasets", Role.ADMIN, Scope.GLOBAL);
        expect("GET /api/v1/datasets/{name}", Role.READER, Scope.DATASET);
        expect("DELETE /api/v1/datasets/{name}", Role.ADMIN, Scope.DATASET);
        expect("DELETE /api/v1/datasets/{name}/cache", Role.ADMIN, Scope.DATASET);
        expect("POST /api/v1/datasets/{name}/sync", Role.ADMIN, Scope.DATASET);
        expect("PUT /api/v1/datasets/{name}/bucket", Role.ADMIN, Scope.DATASET);
        expect("GET /api/v1/datasets/{name}/files", Role.READER, Scope.DATASET);
        expect("GET /api/v1/datasets/{name}/files/{path}", Role.READER, Scope.DATASET);
        expect("POST /api/v1/datasets/{name}/files/{path}/refresh", Role.WRITER, Scope.DATASET);
        expect("GET /api/v1/datasets/{name}/nodes", Role.READER, Scope.DATASET);
        expect("GET /api/v1/workers", Role.ADMIN, Scope.GLOBAL);
        expect("POST /api/v1/workers/{id}/drain", Role.ADMIN, Scope.GLOBAL);
        expect("DELETE /api/v1/workers/{id}/drain", Role.ADMIN, Scope.GLOBAL);
        expect("GET /api/v1/dataloads", Role.READER, Scope.OWN);
        expect("POST /api/v1/dataloads", Role.WRITER, Scope.BODY);
        expect("GET /api/v1/dataloads/{id}", Role.READER, Scope.OWN);
        expect("GET /api/v1/dataloads/{id}/events", Role.READER, Scope.OWN);
        expect("DELETE /api/v1/dataloads/{id}", Role.WRITER, Scope.OWN);
        expect("GET /api/v1/plans", Role.READER, Scope.OWN);
        expect("POST /api/v1/plans", Role.READER, Scope.BODY);
        expect("GET /api/v1/plans/{id}", Role.READER, Scope.OWN);
        expect("DELETE /api/v1/plans/{id}", Role.READER, Scope.OWN);
        expect("GET /blocks/stats", Role.ADMIN, Scope.GLOBAL);
        expect("POST /blocks/fill", Role.CLUSTER, Scope.GLOBAL);
        expect("POST /blocks/{dataset}/reads", Role.CLUSTER, Scope.GLOBAL);
        expect("POST /blocks/{dataset}/held", Role.CLUSTER, Scope.GLOBAL);
        expect("PUT /worker/plans/{id}", Role.CLUSTER, Scope.GLOBAL);
        expect("GET /worker/plans/{id}", Role.CLUSTER, Scope.GLOBAL);
        expect("DELETE /worker/plans/{id}", Role.CLUSTER, Scope.GLOBAL);
        expect("POST /worker/drain", Role.CLUSTER, Scope.GLOBAL);
        expect("GET /worker/drain", Role.CLUSTER, Scope.GLOBAL);
        expect("DELETE /worker/drain", Role.CLUSTER, Scope.GLOBAL);
        expect("DELETE /blocks/{dataset}", Role.CLUSTER, Scope.GLOBAL);
        // A worker's block reads and writes are Vert.x routes, outside its OpenAPI document.
        expect("GET /blocks/{dataset}/{index}", Role.CLUSTER, Scope.GLOBAL);
        expect("HEAD /blocks/{dataset}/{index}", Role.CLUSTER, Scope.GLOBAL);
        expect("PUT /blocks/{dataset}/{index}", Role.CLUSTER, Scope.GLOBAL);
    }

    static final List<String> OUTSIDE_OPENAPI = List.of("GET /blocks/{dataset}/{index}",
            "HEAD /blocks/{dataset}/{index}", "PUT /blocks/{dataset}/{index}");

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final HttpClient HTTP_1_1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private AccessMatrix() {
    }

    private static void expect(String operation, Role needs, Scope scope) {
        EXPECTED.put(operation, new Expectation(needs, scope));
    }

    /** The operations of a service's OpenAPI document, as "METHOD /path/{param}". */
    static Set<String> operations(URI service) throws IOException, InterruptedException {
        JsonNode document = PreloadPipeline.JSON.readTree(HTTP.send(HttpRequest.newBuilder(
                service.resolve("/q/openapi?format=json")).build(), HttpResponse.BodyHandlers.ofString()).body());
        Set<String> operations = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = document.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue().fieldNames().forEachRemaining(method -> {
                if (Set.of("get", "put", "post", "delete", "head", "patch", "options").contains(method)) {
                    operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            });
        }
        return operations;
    }

    /** What each caller got for each operation, where it is not what the table says: empty when all is right. */
    static List<String> mismatches(URI service, Set<String> operations, List<Caller> callers)
            throws IOException, InterruptedException {
        List<String> wrong = new ArrayList<>();
        for (String operation : operations) {
            Expectation expected = EXPECTED.get(operation);
            if (expected == null) {
                wrong.add(operation + " on " + service + ": no one has said who may call it");
                continue;
            }
            for (Caller caller : callers) {
                int status = send(service, operation, caller);
                int wanted = caller.role() == null ? 401 : allowed(expected, caller) ? 0 : 403;
                boolean right = wanted == 0 ? status != 401 && status != 403 && status < 500 : status == wanted;
                if (!right) {
                    wrong.add(operation + " on " + service + " as " + caller.name() + ": " + status + ", wanted "
                            + (wanted == 0 ? "an answer past the guard" : wanted));
                }
            }
        }
        return wrong;
    }

    private static boolean allowed(Expectation expected, Caller caller) {
        boolean role = caller.role().compareTo(expected.needs()) >= 0;
        return switch (expected.scope()) {
            case DATASET, BODY -> role && (caller.datasets().isEmpty() || caller.datasets().contains(DATASET));
            case GLOBAL -> role && caller.datasets().isEmpty();
            case OWN -> role;
        };
    }

    /** A GET signed by the AWS SDK's signer with the given S3 keys, as any AWS-signing client signs it. */
    static int signedGet(URI uri, String accessKey, String secretKey) throws IOException, InterruptedException {
        SignedRequest signed = AwsV4HttpSigner.create().sign(sign -> sign
                .request(SdkHttpRequest.builder().uri(uri).method(SdkHttpMethod.GET).build())
                .identity(AwsCredentialsIdentity.create(accessKey, secretKey))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1"));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri);
        signed.request().headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                values.forEach(value -> request.header(name, value));
            }
        });
        // HTTP/1.1: a signed call upgraded to h2c fails on a service's own port (Quarkus REST refuses a request that
        // ended with its head); the gateway takes it either way.
        return HTTP_1_1.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static int send(URI service, String operation, Caller caller) throws IOException, InterruptedException {
        String method = operation.substring(0, operation.indexOf(' '));
        String path = operation.substring(operation.indexOf(' ') + 1).replace("{name}", DATASET)
                .replace("{dataset}", DATASET).replace("{path}", "x").replace("{id}", "absent-load")
                .replace("{index}", "0");
        String body = switch (operation) {
            case "POST /api/v1/datasets", "PUT /api/v1/datasets/{name}/bucket" -> "{}";
            case "POST /api/v1/dataloads" -> "{\"dataset\":\"" + DATASET + "\",\"targets\":[{\"path\":\"/\"}]}";
            case "POST /api/v1/plans" -> "{\"dataset\":\"" + DATASET + "\",\"job\":\"j\",\"epoch\":0,\"rank\":0,"
                    + "\"worldSize\":1,\"files\":[\"x\"]}";
            case "POST /blocks/fill" -> "{}";
            default -> method.equals("PUT") || method.equals("POST") ? "" : null;
        };
        HttpRequest.Builder request = HttpRequest.newBuilder(service.resolve(path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        if (caller.token() != null) {
            request.header("Authorization", "Bearer " + caller.token());
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
