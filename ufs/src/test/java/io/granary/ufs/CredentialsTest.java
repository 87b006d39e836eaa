package io.granary.ufs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CredentialsTest {

    @Test
    void toStringHidesTheSecret() {
        Credentials credentials = new Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG");

        assertThat(credentials.toString()).isEqualTo("Credentials[accessKey=AKIA…, secretKey=***]")
                .doesNotContain("wJalrXUtnFEMI");
    }
}
