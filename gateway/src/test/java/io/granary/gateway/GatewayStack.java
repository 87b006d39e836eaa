package io.granary.gateway;

/**
 * What every gateway test runs beside the gateway, named once: Quarkus starts one stack for all the classes whose
 * resource annotations are equal. Two workers (one stands for another node), and a preload-service held to a rate
 * at which a preload of a few tens of MiB takes seconds, so a test can watch it move.
 */
public final class GatewayStack {

    public static final String SERVICES = "metadata-service,block-service,block-service,preload-service";
    public static final String PRELOAD_RATE = "preload-service:granary.preload.bandwidth-limit";
    public static final String PRELOAD_RATE_VALUE = "8MiB";

    private GatewayStack() {
    }
}
