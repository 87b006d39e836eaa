package io.granary.gateway.s3;

import io.granary.devstack.testing.Identities.Identity;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.time.Duration;

/**
 * The AWS SDK's S3 client as users set it up for the gateway: path-style, us-east-1, one identity's keys. Calls may
 * take minutes (a copy of gigabytes is answered once made).
 */
public final class SdkClients {

    private SdkClients() {
    }

    public static S3Client of(URI gateway, Identity identity) {
        return of(gateway, identity.accessKey(), identity.secretKey());
    }

    static S3Client of(URI gateway, String accessKey, String secretKey) {
        return S3Client.builder().endpointOverride(gateway).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(Duration.ofMinutes(5)))
                .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofMinutes(5)).build()).build();
    }
}
