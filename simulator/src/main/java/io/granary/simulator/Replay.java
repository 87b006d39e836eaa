package io.granary.simulator;

import io.granary.simulator.policy.CachePolicy;
import io.granary.simulator.trace.Trace;

/** A trace read through a policy: the hit ratio of each epoch. */
public final class Replay {

    private Replay() {
    }

    public static double[] hitRatios(Trace trace, CachePolicy policy) {
        int[] reads = trace.reads();
        double[] ratios = new double[trace.epochs()];
        for (int epoch = 0; epoch < trace.epochs(); epoch++) {
            int start = trace.epochStarts()[epoch];
            int end = trace.epochEnd(epoch);
            long hits = 0;
            for (int i = start; i < end; i++) {
                if (policy.read(reads[i], i)) {
                    hits++;
                }
            }
            ratios[epoch] = end == start ? 0 : (double) hits / (end - start);
        }
        return ratios;
    }

    /** The mean of the epochs after the first, which fills the cache: what every later epoch of a job gets. */
    public static double steady(double[] ratios) {
        if (ratios.length < 2) {
            return ratios.length == 0 ? 0 : ratios[0];
        }
        double sum = 0;
        for (int epoch = 1; epoch < ratios.length; epoch++) {
            sum += ratios[epoch];
        }
        return sum / (ratios.length - 1);
    }
}
