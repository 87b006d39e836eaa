package io.granary.hook.affinity;

/**
 * One preferred scheduling term toward where a pod's data is cached.
 *
 * @param proximity how close to the data: the node itself, its zone or its region
 * @param value  the node name, zone or region
 * @param weight 1-100, as node affinity takes it
 * @param bytes  cached bytes of the pod's datasets in that place
 */
public record LocalityTerm(Proximity proximity, String value, int weight, long bytes) {

    public enum Proximity { NODE, ZONE, REGION }
}
