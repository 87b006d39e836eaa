package io.granary.gateway.s3;

import io.granary.devstack.testing.Datasets;
import io.granary.devstack.testing.Identities;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.gateway.GatewayStack;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S3 clients people sync datasets with, run for real against the gateway: rclone ({@code copy}, {@code sync},
 * {@code check}, which compares MD5s with ETags) and the AWS CLI ({@code aws s3 sync}), both ways, for a bucket over a
 * local directory and a dataset over S3. {@code .ci/run} installs both and sets {@code GRANARY_S3_CLIENTS=required};
 * elsewhere the test is skipped when a client is missing.
 */
@QuarkusTest
@WithTestResource(value = StackResource.class, scope = TestResourceScope.MATCHING_RESOURCES, initArgs = {
        @ResourceArg(name = "services", value = GatewayStack.SERVICES),
        @ResourceArg(name = GatewayStack.PRELOAD_RATE, value = GatewayStack.PRELOAD_RATE_VALUE)})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3ClientsTest {

    private static final int MIB = 1 << 20;

    @TestHTTPResource("/")
    URI gateway;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "devstack.s3.endpoint")
    String s3Endpoint;

    @ConfigProperty(name = "devstack.s3.data-dir")
    Path s3Buckets;

    @TempDir
    Path work;

    @BeforeAll
    void buckets() throws IOException {
        RestAssuredAuth.asCluster();
        boolean required = "required".equals(System.getenv("GRANARY_S3_CLIENTS"));
        for (String client : List.of("rclone", "aws")) {
            boolean found = Stream.of(System.getenv("PATH").split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, client)));
            if (required) {
                assertThat(found).as(client + " is on the PATH (apt-get install rclone awscli)").isTrue();
            }
            Assumptions.assumeTrue(found, client + " is not installed");
        }
        try (S3Client admin = SdkClients.of(gateway, Identities.ADMIN)) {
            admin.createBucket(create -> create.bucket("clients-local"));
        }
        Files.createDirectories(s3Buckets.resolve("clients-s3"));
        Datasets.createBound(gateway, Datasets.spec("clients-s3", "1MiB", Datasets.s3Mount("clients-s3", s3Endpoint)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"clients-local", "clients-s3"})
    void rcloneCopiesSyncsAndChecksBothWays(String bucket) throws Exception {
        Path source = tree(work.resolve(bucket + "-source"), 1);
        String remote = "granary:" + bucket + "/rclone";

        rclone("copy", source.toString(), remote);
        rclone("check", source.toString(), remote);  // sizes and MD5s against the ETags (and a big file's md5chksum)

        Files.delete(source.resolve("a/b/0.bin"));
        Files.writeString(source.resolve("a/new.txt"), "new");
        Files.write(source.resolve("top.bin"), bytes(new Random(9), 1000));
        rclone("sync", source.toString(), remote);
        rclone("check", source.toString(), remote);

        Path back = work.resolve(bucket + "-back");
        rclone("copy", remote, back.toString());
        rclone("check", remote, back.toString());
        assertThat(contents(back)).isEqualTo(contents(source));
        Files.writeString(back.resolve("stale.txt"), "to be removed by the sync");
        rclone("sync", remote, back.toString());
        rclone("check", remote, back.toString());
        assertThat(contents(back)).isEqualTo(contents(source));
    }

    /** A file put in a local bucket's directory behind Granary's back has no MD5 ETag: rclone must not trip on it. */
    @ParameterizedTest
    @ValueSource(strings = {"clients-local"})
    void rcloneReadsFilesGranaryDidNotWrite(String bucket) throws Exception {
        Path placed = Files.createDirectories(localRoot.resolve("buckets").resolve(bucket).resolve("placed"));
        Files.write(placed.resolve("file.bin"), bytes(new Random(5), 300_000));
        given().contentType("application/json").post(gateway.resolve("/api/v1/datasets/" + bucket + "/sync")).then()
                .statusCode(202);
        Datasets.awaitBound(gateway, bucket);
        Path copy = work.resolve("placed-copy");
        rclone("copy", "granary:" + bucket + "/placed", copy.toString());
        rclone("check", "granary:" + bucket + "/placed", copy.toString());
        assertThat(copy.resolve("file.bin")).hasSameBinaryContentAs(placed.resolve("file.bin"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"clients-local", "clients-s3"})
    void awsS3SyncsBothWays(String bucket) throws Exception {
        Path source = tree(work.resolve(bucket + "-aws-source"), 2);
        String url = "s3://" + bucket + "/aws";

        aws("s3", "sync", source.toString(), url);
        assertThat(aws("s3", "sync", "--dryrun", source.toString(), url)).as("nothing left to upload").isBlank();
        Path back = work.resolve(bucket + "-aws-back");
        aws("s3", "sync", url, back.toString());
        assertThat(contents(back)).isEqualTo(contents(source));
        assertThat(aws("s3", "sync", "--dryrun", url, back.toString())).as("nothing left to download").isBlank();

        Files.delete(source.resolve("a/b/3.bin"));
        Files.writeString(source.resolve("a/changed.txt"), "changed, and longer than before");
        aws("s3", "sync", "--delete", source.toString(), url);
        aws("s3", "sync", "--delete", url, back.toString());
        assertThat(contents(back)).isEqualTo(contents(source));
    }

    /** Files in nested directories, an empty one, and one big enough for a multipart upload by either client. */
    private static Path tree(Path root, long seed) throws IOException {
        Random random = new Random(seed);
        for (int i = 0; i < 12; i++) {
            Path file = root.resolve(i % 3 == 0 ? "a/b" : "a").resolve(i + ".bin");
            Files.createDirectories(file.getParent());
            Files.write(file, bytes(random, random.nextInt(200_000)));
        }
        Files.writeString(root.resolve("a/changed.txt"), "before");
        Files.write(root.resolve("empty"), new byte[0]);
        Files.write(root.resolve("big.bin"), bytes(random, 12 * MIB + 7));
        return root;
    }

    private static Map<String, String> contents(Path root) throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                files.put(root.relativize(file).toString(), HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
            }
        }
        return files;
    }

    private String rclone(String... args) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("RCLONE_CONFIG_GRANARY_TYPE", "s3");
        env.put("RCLONE_CONFIG_GRANARY_PROVIDER", "Other");
        env.put("RCLONE_CONFIG_GRANARY_ACCESS_KEY_ID", Identities.ADMIN.accessKey());
        env.put("RCLONE_CONFIG_GRANARY_SECRET_ACCESS_KEY", Identities.ADMIN.secretKey());
        env.put("RCLONE_CONFIG_GRANARY_ENDPOINT", gateway.toString());
        env.put("RCLONE_CONFIG_GRANARY_REGION", "us-east-1");
        env.put("RCLONE_CONFIG_GRANARY_FORCE_PATH_STYLE", "true");
        List<String> command = new ArrayList<>(List.of("rclone", "--config", "/dev/null", "--s3-upload-cutoff", "5M",
                "--s3-chunk-size", "5M", "--retries", "1", "--low-level-retries", "1"));
        command.addAll(List.of(args));
        return run(command, env);
    }

    private String aws(String... args) throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_ACCESS_KEY_ID", Identities.ADMIN.accessKey());
        env.put("AWS_SECRET_ACCESS_KEY", Identities.ADMIN.secretKey());
        env.put("AWS_DEFAULT_REGION", "us-east-1");
        env.put("AWS_CONFIG_FILE", "/dev/null");
        env.put("AWS_SHARED_CREDENTIALS_FILE", "/dev/null");
        List<String> command = new ArrayList<>(List.of("aws", "--endpoint-url", gateway.toString()));
        command.addAll(List.of(args));
        command.add("--no-progress");
        return run(command, env);
    }

    /** The command's output; a non-zero exit fails the test with it. */
    private String run(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // Plain HTTP on loopback: a CA bundle set for the machine (rclone fails on AWS_CA_BUNDLE) is not wanted.
        builder.environment().keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("RCLONE_"));
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
        String text = new String(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(String.join(" ", command) + "\n" + text).isZero();
        return text;
    }

    private static byte[] bytes(Random random, int size) {
        byte[] content = new byte[size];
        random.nextBytes(content);
        return content;
    }
}
