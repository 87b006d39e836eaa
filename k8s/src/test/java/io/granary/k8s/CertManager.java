package io.granary.k8s;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;

import java.util.List;

/**
 * The cert-manager kinds the webhook's TLS depends on. fabric8 has no model for them; typed here with exactly the
 * fields k8s/ uses, and since fabric8's mapper refuses unknown fields on such classes, a misspelled one fails to parse.
 */
final class CertManager {

    private CertManager() {
    }

    @Group("cert-manager.io")
    @Version("v1")
    @Kind("Issuer")
    public static final class Issuer extends CustomResource<IssuerSpec, Void> implements Namespaced {
    }

    public record IssuerSpec(SelfSigned selfSigned, Ca ca) {
    }

    public record SelfSigned() {
    }

    /** An issuer that signs with the CA certificate and key in this Secret. */
    public record Ca(String secretName) {
    }

    @Group("cert-manager.io")
    @Version("v1")
    @Kind("Certificate")
    public static final class Certificate extends CustomResource<CertificateSpec, Void> implements Namespaced {
    }

    public record CertificateSpec(Boolean isCA, String commonName, String secretName, List<String> dnsNames,
                                  IssuerRef issuerRef, String duration, String renewBefore, PrivateKey privateKey) {
    }

    public record IssuerRef(String group, String kind, String name) {
    }

    public record PrivateKey(String algorithm, Integer size, String encoding, String rotationPolicy) {
    }
}
