package io.granary.kit.security;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import org.eclipse.microprofile.rest.client.ext.ClientHeadersFactory;

/** The cluster credential on every call of a REST client that names this ({@code @RegisterClientHeaders}). */
@ApplicationScoped
public class ClusterHeaders implements ClientHeadersFactory {

    private final ClusterCredential cluster;

    ClusterHeaders(ClusterCredential cluster) {
        this.cluster = cluster;
    }

    @Override
    public MultivaluedMap<String, String> update(MultivaluedMap<String, String> incoming,
                                                 MultivaluedMap<String, String> outgoing) {
        MultivaluedMap<String, String> headers = new MultivaluedHashMap<>();
        headers.putSingle("Authorization", cluster.authorization());
        return headers;
    }
}
