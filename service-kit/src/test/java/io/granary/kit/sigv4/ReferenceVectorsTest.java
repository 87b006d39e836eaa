package io.granary.kit.sigv4;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests signed by other clients than the Java SDK, with their signatures as those clients computed them: the
 * examples of S3's SigV4 documentation, and botocore (what the AWS CLI and boto3 sign with), which also shows the
 * two forms the SDK signer cannot produce, the Date header instead of X-Amz-Date and signed User-Agent/Expect.
 */
class ReferenceVectorsTest {

    /** The examples in S3's "Authenticating Requests (AWS Signature Version 4)" documentation. */
    @Test
    void s3DocumentationExamples() {
        SigV4Verifier verifier = new SigV4Verifier(
                ak -> Optional.of("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").filter(s -> ak.equals("AKIAIOSFODNN7EXAMPLE")),
                "us-east-1", false, Clock.fixed(Instant.parse("2013-05-24T00:00:00Z"), ZoneOffset.UTC));
        String credential = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,";
        String emptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

        IncomingRequest getObject = new IncomingRequest("GET", "/test.txt", null, headers(
                "host", "examplebucket.s3.amazonaws.com",
                "range", "bytes=0-9",
                "x-amz-content-sha256", emptySha256,
                "x-amz-date", "20130524T000000Z",
                "authorization", credential + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                        + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"));
        IncomingRequest putObject = new IncomingRequest("PUT", "/test%24file.text", null, headers(
                "host", "examplebucket.s3.amazonaws.com",
                "date", "Fri, 24 May 2013 00:00:00 GMT",
                "x-amz-date", "20130524T000000Z",
                "x-amz-storage-class", "REDUCED_REDUNDANCY",
                "x-amz-content-sha256", "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
                "authorization", credential
                        + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
                        + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"));
        IncomingRequest getLifecycle = new IncomingRequest("GET", "/", "lifecycle", headers(
                "host", "examplebucket.s3.amazonaws.com",
                "x-amz-date", "20130524T000000Z",
                "x-amz-content-sha256", emptySha256,
                "authorization", credential + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                        + "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
        IncomingRequest listObjects = new IncomingRequest("GET", "/", "max-keys=2&prefix=J", headers(
                "host", "examplebucket.s3.amazonaws.com",
                "x-amz-date", "20130524T000000Z",
                "x-amz-content-sha256", emptySha256,
                "authorization", credential + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                        + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
        IncomingRequest presigned = new IncomingRequest("GET", "/test.txt", "X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
                headers("host", "examplebucket.s3.amazonaws.com"));

        assertThat(verifier.verify(getObject).payload()).isEqualTo(PayloadMode.SIGNED);
        assertThat(verifier.verify(putObject).payloadSha256())
                .isEqualTo("44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
        assertThat(verifier.verify(getLifecycle).accessKeyId()).isEqualTo("AKIAIOSFODNN7EXAMPLE");
        assertThat(verifier.verify(listObjects).accessKeyId()).isEqualTo("AKIAIOSFODNN7EXAMPLE");
        assertThat(verifier.verify(presigned).payload()).isEqualTo(PayloadMode.UNSIGNED);
    }

    /**
     * botocore 1.43.11's S3SigV4Auth / S3SigV4QueryAuth at 2026-11-23T10:00:00Z with the test credentials, over
     * http://localhost:8080. "date only": a request carrying a Date header, which botocore then signs instead of
     * X-Amz-Date. "user-agent and expect": headers_to_sign widened to them, as the SDK for Java v1 signs.
     */
    @Test
    void botocoreSignedRequests() {
        SigV4Verifier verifier = SdkClient.verifier();
        String credential = "AWS4-HMAC-SHA256 Credential=AKIDGRANARYTEST/20261123/us-east-1/s3/aws4_request, ";
        String oddKey = "/granary/dir/a%20b%2Bc%3Dd~e%25f/%C3%A9%E6%96%87.txt";

        IncomingRequest dateOnly = new IncomingRequest("PUT", "/granary/date%20only.txt", null, headers(
                "host", "localhost:8080",
                "content-type", "text/plain",
                "date", "Mon, 23 Nov 2026 10:00:00 -0000",
                "x-amz-content-sha256", "7494bd52c78fa29512f956a20da56147167d53179202a8c53c389083fbc805fb",
                "authorization", credential + "SignedHeaders=content-type;date;host;x-amz-content-sha256, "
                        + "Signature=3d010483d71a4638629dcb72570b9192ab5fc4bdd8547e9cd645789081e3c1ad",
                "content-length", "10"));
        IncomingRequest userAgentAndExpect = new IncomingRequest("PUT", "/granary/hadoop/part-0000", null, headers(
                "host", "localhost:8080",
                "user-agent", "Hadoop 3.3.6, aws-sdk-java/1.12.367",
                "expect", "100-continue",
                "content-type", "application/octet-stream",
                "x-amz-date", "20261123T100000Z",
                "x-amz-content-sha256", "7a7dab67279f4f907888bc5245beffab1bf2c828eaefb20946212ce0711dae60",
                "authorization", credential
                        + "SignedHeaders=content-type;expect;host;user-agent;x-amz-content-sha256;x-amz-date, "
                        + "Signature=9b18a791fbe4ed805dfc843aa6bc52e231a47bb12b1659379a70798307112aaf",
                "content-length", "12"));
        IncomingRequest list = new IncomingRequest("GET", "/granary",
                "list-type=2&prefix=&delimiter=%2F&encoding-type=url", headers(
                "host", "localhost:8080",
                "x-amz-date", "20261123T100000Z",
                "x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "authorization", credential + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                        + "Signature=6274577056e728866956cc961818f287c8b7424da3620bc2fb81b3af289a3727"));
        IncomingRequest putOddKey = new IncomingRequest("PUT", oddKey, null, headers(
                "host", "localhost:8080",
                "x-amz-date", "20261123T100000Z",
                "x-amz-content-sha256", "990cb8ebd0afb7150da453a213036a92f2c05e091df0d803e62d257ea7796c27",
                "authorization", credential + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                        + "Signature=0895f94e4c33498477e6e9501a83dc779cc83a261f500ea964ef3fada9a4c521",
                "content-length", "3"));
        IncomingRequest presigned = new IncomingRequest("GET", oddKey, "X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIDGRANARYTEST%2F20261123%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20261123T100000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=347cb40b65039e25d4b3be04fa69b93faea8e63801cbdb3b805049070ad79d65",
                headers("host", "localhost:8080"));

        for (IncomingRequest request : List.of(dateOnly, userAgentAndExpect, list, putOddKey, presigned)) {
            assertThat(verifier.verify(request).accessKeyId()).as(request.rawPath()).isEqualTo("AKIDGRANARYTEST");
        }
        SigV4VerifierTest.assertFails(SdkClient.withHeader(dateOnly, "date", "Mon, 23 Nov 2026 10:00:01 -0000"),
                verifier, "SignatureDoesNotMatch", 403);
        SigV4VerifierTest.assertFails(SdkClient.withHeader(userAgentAndExpect, "user-agent", "Hadoop 3.3.7"),
                verifier, "SignatureDoesNotMatch", 403);
        SigV4VerifierTest.assertFails(SdkClient.withQuery(list, "list-type=2&prefix=a&delimiter=%2F&encoding-type=url"),
                verifier, "SignatureDoesNotMatch", 403);
    }

    private static Map<String, List<String>> headers(String... namesAndValues) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return headers;
    }
}
