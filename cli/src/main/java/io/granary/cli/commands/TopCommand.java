package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.CliFailure;
import io.granary.cli.Exit;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.worker.Worker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code granary top}: datasets (cached, hit ratio, read throughput) and workers (levels' use, bytes served per
 * second), redrawn every interval. Throughputs come from the API's counters, which move with the workers'
 * heartbeats (every few seconds): a rate is taken over the last {@link #WINDOW} of looks, or it would swing between
 * nothing and a burst.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = "A live view of datasets and workers: cached, hit ratio, throughput, levels' use.",
        footerHeading = "%nExamples:%n", footer = {"  granary top", "  granary top --interval 5 --count 3 > top.log"})
public final class TopCommand extends GranaryCommand {

    private static final String CLEAR = "\033[H\033[2J";
    private static final Duration WINDOW = Duration.ofSeconds(15);

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2",
            description = "seconds between looks (default ${DEFAULT-VALUE})")
    double interval;
    @Option(names = "--count", paramLabel = "N",
            description = "stop after N looks (default: until interrupted on a terminal, 2 otherwise)")
    Integer count;

    /** What one look saw of the counters: bytes read per dataset, bytes served per worker. */
    private record Look(Instant at, Map<String, Long> read, Map<String, Long> served) {
    }

    private final Deque<Look> looks = new ArrayDeque<>();

    @Override
    public Integer call() throws InterruptedException {
        if (interval < 0.5) {
            throw new CliFailure(Exit.USAGE, "--interval must be at least 0.5 seconds");
        }
        boolean terminal = granary().terminal();
        int times = count != null ? count : terminal ? Integer.MAX_VALUE : 2;
        for (int look = 0; look < times; look++) {
            if (look > 0) {
                Thread.sleep(Math.round(interval * 1000));
            }
            String frame = frame();
            PrintWriter out = out();
            out.print(terminal ? CLEAR + frame : frame + "\n");
            out.flush();
        }
        return Exit.OK;
    }

    private String frame() {
        List<Dataset> datasets = api().get(DatasetCommand.DATASETS, new TypeReference<>() {
        });
        List<Worker> workers = workers();
        Look now = new Look(Instant.now(), new HashMap<>(), new HashMap<>());
        datasets.forEach(dataset -> now.read().put(dataset.name(), dataset.status().bytesRead()));
        if (workers != null) {
            workers.forEach(worker -> now.served().put(worker.id(), worker.bytesServed()));
        }
        Duration window = WINDOW.compareTo(Duration.ofMillis(Math.round(interval * 2000))) > 0 ? WINDOW
                : Duration.ofMillis(Math.round(interval * 2000));
        while (!looks.isEmpty() && looks.peekFirst().at().isBefore(now.at().minus(window))) {
            looks.removeFirst();
        }
        Look since = looks.peekFirst();
        looks.addLast(now);

        StringBuilder frame = new StringBuilder("granary top  " + api().endpoint() + "  " + Units.time(now.at())
                + "  (every " + interval + "s; rates over " + window.toSeconds() + "s)\n\n");
        Table table = new Table("dataset", "phase", "files", "size", "cached", "hit", "read/s");
        for (Dataset dataset : datasets) {
            table.row(dataset.name(), Units.phase(dataset.status().phase()), dataset.status().fileCount(),
                    Units.bytes(dataset.status().ufsTotalBytes()), Units.percent(dataset.status().cachedPercentage()),
                    Units.ratio(dataset.status().hitRatio()),
                    rate(since == null ? null : since.read().get(dataset.name()), dataset.status().bytesRead(),
                            since, now));
        }
        frame.append(datasets.isEmpty() ? "no datasets\n" : table.toString());
        if (workers == null) {
            return frame.append("\n(workers are shown to admins only)\n").toString();
        }
        Table levels = new Table("worker", "state", "hit", "served/s", "levels (used/quota)");
        for (Worker worker : workers) {
            levels.row(worker.id(), WorkersCommand.state(worker), WorkersCommand.hitRatio(worker),
                    rate(since == null ? null : since.served().get(worker.id()), worker.bytesServed(), since, now),
                    WorkersCommand.levels(worker));
        }
        return frame.append('\n').append(workers.isEmpty() ? "no workers\n" : levels.toString()).toString();
    }

    /** The workers, or null for a caller not allowed to list them. */
    private List<Worker> workers() {
        try {
            return api().get(WorkersCommand.WORKERS, WorkersCommand.LIST);
        } catch (CliFailure failure) {
            if (failure.exitCode() == Exit.DENIED) {
                return null;
            }
            throw failure;
        }
    }

    /** Bytes per second since an earlier look; a dash without one, or when the counter went back (a restart). */
    private static String rate(Long before, long after, Look since, Look now) {
        double seconds = since == null ? 0 : Duration.between(since.at(), now.at()).toMillis() / 1000.0;
        return before == null || seconds <= 0 || after < before ? "-" : Units.rate((after - before) / seconds);
    }
}
