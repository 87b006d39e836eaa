package io.granary.hook;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.math.BigInteger;
import java.net.URL;
import java.security.cert.X509Certificate;
import java.time.Duration;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@QuarkusTestResource(TlsCertificateResource.class)
class SchedulerHookTest {

    @TestHTTPResource(value = "/q/health/ready", tls = true)
    URL ready;

    @TestHTTPResource(value = "/q/openapi", tls = true)
    URL openapi;

    @TestHTTPResource(value = "/q/metrics", tls = true)
    URL metrics;

    @Test
    void servesHealthOpenApiAndMetricsOverTls() {
        given().relaxedHTTPSValidation().when().get(ready).then().statusCode(200).body("status", equalTo("UP"));
        given().relaxedHTTPSValidation().when().get(openapi).then().statusCode(200).body(containsString("scheduler-hook"))
                .body(containsString("/mutate"));
        given().relaxedHTTPSValidation().when().get(metrics).then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }

    @Test
    void aRenewedCertificateIsServedWithoutARestart() throws Exception {
        BigInteger before = servedSerial();
        TlsCertificateResource.renew();
        // A handshake at the very moment of the swap may be dropped (Vert.x), hence ignoreExceptions.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> !servedSerial().equals(before));
        for (int i = 0; i < 20; i++) {
            assertThat(servedSerial()).as("once swapped, every handshake succeeds with the new certificate")
                    .isNotEqualTo(before);
        }
    }

    /** The serial number of the certificate the hook presents in a fresh handshake. */
    private BigInteger servedSerial() throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[]{new AcceptAny()}, null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(ready.getHost(), ready.getPort())) {
            socket.startHandshake();
            X509Certificate served = (X509Certificate) socket.getSession().getPeerCertificates()[0];
            assertThat(served.getSubjectX500Principal().getName()).contains("CN=localhost");
            return served.getSerialNumber();
        }
    }

    /** Only to read what is served; nothing is trusted on the strength of it. */
    private static final class AcceptAny implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
