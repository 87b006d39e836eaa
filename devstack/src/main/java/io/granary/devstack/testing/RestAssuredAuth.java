package io.granary.devstack.testing;

import io.restassured.RestAssured;
import io.restassured.filter.Filter;

/** RestAssured for a test of what a service does, not of who may ask it: every call as Granary's services call. */
public final class RestAssuredAuth {

    private static final Filter AS_CLUSTER = (request, response, next) -> {
        if (!request.getHeaders().hasHeaderWithName("Authorization")) {
            request.header("Authorization", Identities.CLUSTER_AUTHORIZATION);
        }
        return next.next(request, response);
    };

    private RestAssuredAuth() {
    }

    /** A call that names its own Authorization keeps it. */
    public static void asCluster() {
        RestAssured.replaceFiltersWith(AS_CLUSTER);
    }
}
