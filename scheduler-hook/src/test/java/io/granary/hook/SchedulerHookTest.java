package io.granary.hook;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import java.net.URL;

import static io.restassured.RestAssured.given;
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
        given().relaxedHTTPSValidation().when().get(openapi).then().statusCode(200).body(containsString("scheduler-hook"));
        given().relaxedHTTPSValidation().when().get(metrics).then().statusCode(200).body(containsString("jvm_memory_used_bytes"));
    }
}
