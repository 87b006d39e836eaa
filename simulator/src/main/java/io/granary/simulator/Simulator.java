package io.granary.simulator;

import io.granary.simulator.trace.RecordedTrace;
import io.granary.simulator.trace.Samplers;
import io.granary.simulator.trace.Trace;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays every trace against every policy at cache/dataset 0.02, 0.1, 0.25, 0.5, 0.75, 0.9 and 1.1 and prints one
 * markdown table per trace: the hit ratio of the epochs after the first (what every later epoch of a job gets), and for the
 * first trace at 0.5 the ratio epoch by epoch. {@code simulate [--files N] [--epochs N] [--trace FILE]...}.
 */
public final class Simulator {

    static final double[] RATIOS = {0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 1.1};

    private Simulator() {
    }

    public static void main(String[] args) throws IOException {
        int files = 10_000;
        int epochs = 5;
        List<Path> recorded = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files" -> files = Integer.parseInt(args[++i]);
                case "--epochs" -> epochs = Integer.parseInt(args[++i]);
                case "--trace" -> recorded.add(Path.of(args[++i]));
                default -> {
                    System.err.println("simulate: unknown argument " + args[i]
                            + " (usage: simulate [--files N] [--epochs N] [--trace FILE]...)");
                    System.exit(2);
                }
            }
        }
        List<Trace> traces = new ArrayList<>(List.of(
                Samplers.randomSampler(files, 1, epochs, 7),
                Samplers.distributedSampler(files, 1, epochs, 7, 8),
                Samplers.randomSampler(files / 8, 8, epochs, 7),
                Samplers.twoJobs(files, 1, epochs, 7, 11),
                Samplers.scanAmongEpochs(files, 1, epochs, 7, files),
                Samplers.oneJobAfterAnother(files / 2, 1, epochs, 7),
                Samplers.twoDatasets(files / 2, 1, epochs, 7, 11)));
        for (Path file : recorded) {
            traces.add(RecordedTrace.read(file));
        }
        report(traces, System.out);
    }

    static void report(List<Trace> traces, PrintStream out) {
        long started = System.nanoTime();
        long reads = 0;
        for (Trace trace : traces) {
            out.printf("%n%s: %,d blocks, %d epochs, %,d reads. Hit ratio of epochs 2-%d, by cache/dataset:%n%n",
                    trace.name(), trace.blocks(), trace.epochs(), trace.reads().length, trace.epochs());
            StringBuilder head = new StringBuilder("| policy |");
            StringBuilder rule = new StringBuilder("|---|");
            for (double ratio : RATIOS) {
                head.append(' ').append(ratio).append(" |");
                rule.append("---:|");
            }
            out.println(head);
            out.println(rule);
            for (Policies.Named policy : Policies.all()) {
                StringBuilder row = new StringBuilder("| ").append(policy.name()).append(" |");
                for (double ratio : RATIOS) {
                    int capacity = (int) Math.round(trace.blocks() * ratio);
                    double[] hits = Replay.hitRatios(trace, policy.make().apply(trace, capacity));
                    reads += trace.reads().length;
                    row.append(String.format(" %.3f |", Replay.steady(hits)));
                }
                out.println(row);
            }
        }
        Trace first = traces.get(0);
        out.printf("%n%s at cache/dataset 0.5, epoch by epoch:%n%n", first.name());
        StringBuilder head = new StringBuilder("| policy |");
        StringBuilder rule = new StringBuilder("|---|");
        for (int epoch = 1; epoch <= first.epochs(); epoch++) {
            head.append(" epoch ").append(epoch).append(" |");
            rule.append("---:|");
        }
        out.println(head);
        out.println(rule);
        for (Policies.Named policy : Policies.all()) {
            double[] hits = Replay.hitRatios(first, policy.make().apply(first, first.blocks() / 2));
            reads += first.reads().length;
            StringBuilder row = new StringBuilder("| ").append(policy.name()).append(" |");
            for (double hit : hits) {
                row.append(String.format(" %.3f |", hit));
            }
            out.println(row);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        out.printf("%n%,d reads replayed in %.1f s (%,.0f reads/s).%n", reads, seconds, reads / seconds);
    }
}
