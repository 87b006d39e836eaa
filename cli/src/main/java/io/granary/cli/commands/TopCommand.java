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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code granary top}: datasets (cached, hit ratio, read throughput) and workers (levels' use, bytes served per
 * second), redrawn every interval. Throughputs are the difference of the API's counters between two looks, so the
 * first look shows none.
 */
@Command(name = "top", mixinStandardHelpOptions = true,
        description = "A live view of datasets and workers: cached, hit ratio, throughput, levels' use.",
        footerHeading = "%nExamples:%n", footer = {"  granary top", "  granary top --interval 5 --count 3 > top.log"})
public final class TopCommand extends GranaryCommand {

    private static final String CLEAR = "\033[H\033[2J";

    @Option(names = "--interval", paramLabel = "SECONDS", defaultValue = "2",
            description = "seconds between looks (default ${DEFAULT-VALUE})")
    double interval;
    @Option(names = "--count", paramLabel = "N",
            description = "stop after N looks (default: until interrupted on a terminal, 2 otherwise)")
    Integer count;

    private Map<String, Long> readBefore = Map.of();
    private Map<String, Long> servedBefore = Map.of();
    private Instant before;

    @Override
    public Integer call() throws InterruptedException {
        if (interval < 0.5) {
            throw new CliFailure(Exit.USAGE, "--interval must be at least 0.5 seconds");
        }
        boolean terminal = granary().terminal();
        int looks = count != null ? count : terminal ? Integer.MAX_VALUE : 2;
        for (int look = 0; look < looks; look++) {
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
        Instant now = Instant.now();
        List<Worker> workers = workers();
        double seconds = before == null ? 0 : Duration.between(before, now).toMillis() / 1000.0;
        StringBuilder frame = new StringBuilder("granary top  " + api().endpoint() + "  " + Units.time(now)
                + "  (every " + interval + "s)\n\n");
        Table table = new Table("dataset", "phase", "files", "size", "cached", "hit", "read/s");
        Map<String, Long> read = new HashMap<>();
        for (Dataset dataset : datasets) {
            read.put(dataset.name(), dataset.status().bytesRead());
            table.row(dataset.name(), Units.phase(dataset.status().phase()), dataset.status().fileCount(),
                    Units.bytes(dataset.status().ufsTotalBytes()), Units.percent(dataset.status().cachedPercentage()),
                    Units.ratio(dataset.status().hitRatio()),
                    rate(readBefore.get(dataset.name()), dataset.status().bytesRead(), seconds));
        }
        frame.append(datasets.isEmpty() ? "no datasets\n" : table.toString());
        if (workers != null) {
            Table levels = new Table("worker", "state", "hit", "served/s", "levels (used/quota)");
            Map<String, Long> served = new HashMap<>();
            for (Worker worker : workers) {
                served.put(worker.id(), worker.bytesServed());
                levels.row(worker.id(), WorkersCommand.state(worker), WorkersCommand.hitRatio(worker),
                        rate(servedBefore.get(worker.id()), worker.bytesServed(), seconds),
                        WorkersCommand.levels(worker));
            }
            frame.append('\n').append(workers.isEmpty() ? "no workers\n" : levels.toString());
            servedBefore = served;
        } else {
            frame.append("\n(workers are shown to admins only)\n");
        }
        readBefore = read;
        before = now;
        return frame.toString();
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

    private static String rate(Long previous, long now, double seconds) {
        return previous == null || seconds <= 0 ? "-" : Units.rate(Math.max(0, now - previous) / seconds);
    }
}
