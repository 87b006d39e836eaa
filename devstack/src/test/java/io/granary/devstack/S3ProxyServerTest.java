package io.granary.devstack;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Signed S3 traffic against this server is exercised by the ufs contract tests through the MinIO SDK. */
class S3ProxyServerTest {

    @TempDir
    Path dir;

    @Test
    void servesBucketsFromItsDirectoryAndRefusesBadSignatures() throws Exception {
        long pid;
        int port;
        try (S3ProxyServer s3 = S3ProxyServer.start(dir, "access", "secret-secret")) {
            pid = s3.pid();
            port = s3.endpoint().getPort();
            s3.createBucket("train");
            assertThat(Files.isDirectory(dir.resolve("buckets").resolve("train"))).isTrue();

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> listing = http.send(
                    HttpRequest.newBuilder(s3.endpoint().resolve("/train")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(listing.body()).contains("<ListBucketResult").contains("<Name>train</Name>");

            HttpResponse<String> forged = http.send(HttpRequest.newBuilder(s3.endpoint().resolve("/train"))
                    .header("Authorization", "AWS4-HMAC-SHA256 Credential=access/20260101/us-east-1/s3/aws4_request, "
                            + "SignedHeaders=host;x-amz-date, Signature=" + "0".repeat(64))
                    .header("x-amz-date", "20260101T000000Z")
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(forged.statusCode()).isEqualTo(403);
        }
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("stopped by PID").isEmpty();
        assertThat(Ports.listening(port)).isFalse();
    }
}
