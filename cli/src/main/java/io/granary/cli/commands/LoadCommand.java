package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.CliFailure;
import io.granary.cli.Exit;
import io.granary.cli.api.ManagementApi;
import io.granary.cli.output.Output;
import io.granary.cli.output.ProgressLine;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.FileError;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.dataload.Target;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code granary load DATASET [PATH...]}: a DataLoad that warms the cache, followed live if asked; and
 * {@code load ls|get|cancel} for the loads there are.
 */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = "Preload a dataset (or some of its paths) into the cache; list, inspect and cancel DataLoads.",
        subcommands = {LoadCommand.Listing.class, LoadCommand.Get.class, LoadCommand.Cancel.class},
        footerHeading = "%nExamples:%n",
        footer = {"  granary load imagenet --follow", "  granary load imagenet train/ val/ --replicas 2",
                "  granary load imagenet train/ --cron '0 2 * * *'",
                "A dataset named ls, get or cancel is loaded as: granary load -- ls"})
public final class LoadCommand extends GranaryCommand {

    static final String DATALOADS = "/api/v1/dataloads";
    private static final TypeReference<DataLoadStatus> STATUS = new TypeReference<>() {
    };
    private static final int MAX_ERRORS_SHOWN = 20;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DATASET")
    String dataset;
    @Parameters(index = "1..*", paramLabel = "PATH", description = "directories or files to load (default: all)")
    List<String> paths = new ArrayList<>();
    @Option(names = "--replicas", paramLabel = "N", description = "cache copies of each block (default: the dataset's)")
    Integer replicas;
    @Option(names = "--metadata-only", description = "refresh the file listing only, load no data")
    boolean metadataOnly;
    @Option(names = "--cron", paramLabel = "EXPR", description = "load again on this schedule (five cron fields)")
    String cron;
    @Option(names = "--priority", paramLabel = "N", description = "higher runs first (default 0)")
    int priority;
    @Option(names = "--follow", description = "draw the load's progress until it ends; exit 6 if it failed, 7 if cancelled")
    boolean follow;

    /** What {@code POST /api/v1/dataloads} answers. */
    record Accepted(String id, DataLoadStatus status) {
    }

    @Override
    public Integer call() {
        if (dataset == null) {
            throw new CliFailure(Exit.USAGE, "name a dataset to load (granary load DATASET [PATH...]), "
                    + "or a command: ls, get, cancel");
        }
        if (follow && cron != null) {
            throw new CliFailure(Exit.USAGE, "a scheduled load never ends: follow one of its runs with "
                    + "granary load get ID --follow");
        }
        List<Target> targets = (paths.isEmpty() ? List.of("") : paths).stream()
                .map(path -> new Target(path, replicas)).toList();
        DataLoadSpec spec = new DataLoadSpec(dataset, targets, List.of(), metadataOnly,
                cron == null ? LoadPolicy.ONCE : LoadPolicy.CRON, cron, priority);
        Accepted accepted = api().post(DATALOADS, spec, new TypeReference<>() {
        });
        out().println("DataLoad " + accepted.id() + " of " + dataset + (cron == null ? " started"
                : " scheduled on '" + cron + "'") + (follow ? "" : ": granary load get " + accepted.id() + " --follow"));
        out().flush();
        return follow ? follow(this, accepted.id()) : Exit.OK;
    }

    /** Draws the load's events until it ends, and answers the exit code its phase means. */
    static int follow(GranaryCommand command, String id) {
        ProgressLine progress = new ProgressLine(command.out(), command.granary().terminal());
        String uri = DATALOADS + "/" + ManagementApi.segment(id);
        DataLoadStatus last = null;
        // The stream may end early (a gateway restarting): ask again until the load itself ends. A scheduled load's
        // stream goes on through its runs: the end of the run under way is the end.
        for (int tries = 0; tries < 10 && (last == null || !last.phase().ended()); tries++) {
            DataLoadStatus[] seen = {last};
            command.api().events(uri + "/events", STATUS, status -> {
                seen[0] = status;
                progress.show(status);
                return !status.phase().ended();
            });
            last = seen[0] != null && seen[0].phase().ended() ? seen[0] : command.api().get(uri, STATUS);
        }
        progress.show(last);
        progress.end();
        return switch (last.phase()) {
            case COMPLETE -> Exit.OK;
            case FAILED -> {
                command.err().println("granary: DataLoad " + id + " failed:");
                errors(command, last);
                yield Exit.LOAD_FAILED;
            }
            case CANCELLED -> {
                command.err().println("granary: DataLoad " + id + " was cancelled");
                command.err().flush();
                yield Exit.LOAD_CANCELLED;
            }
            default -> throw new CliFailure(Exit.UNAVAILABLE, "DataLoad " + id + " is still " + last.phase()
                    + " but its events stopped: granary load get " + id + " --follow");
        };
    }

    private static void errors(GranaryCommand command, DataLoadStatus status) {
        status.errors().stream().limit(MAX_ERRORS_SHOWN).forEach(error -> command.err().println("  "
                + (error.path().isEmpty() ? "" : error.path() + ": ") + error.reason()));
        if (status.errors().size() > MAX_ERRORS_SHOWN) {
            command.err().println("  ... and " + (status.errors().size() - MAX_ERRORS_SHOWN) + " more");
        }
        command.err().flush();
    }

    @Command(name = "ls", aliases = "list", mixinStandardHelpOptions = true,
            description = "The DataLoads the caller may see, newest first.",
            footerHeading = "%nExamples:%n", footer = {"  granary load ls", "  granary load ls --dataset imagenet -o json"})
    static final class Listing extends GranaryCommand {

        @Option(names = "--dataset", paramLabel = "NAME", description = "only this dataset's loads")
        String dataset;
        @Mixin
        Output output;

        @Override
        public Integer call() {
            List<DataLoadStatus> loads = api().get(DATALOADS, new TypeReference<List<DataLoadStatus>>() {
            }).stream().filter(load -> dataset == null || dataset.equals(load.dataset()))
                    .sorted(Comparator.comparing(DataLoadStatus::updatedAt,
                            Comparator.nullsLast(Comparator.reverseOrder())))
                    .toList();
            output.print(out(), json(), loads, () -> {
                Table table = new Table("id", "dataset", "phase", "done", "files", "age").keep(0);
                loads.forEach(load -> table.row(load.id(), load.dataset(), Units.phase(load.phase()),
                        Units.percent(ProgressLine.percent(load)), ProgressLine.files(load),
                        Units.age(load.startedAt() == null ? load.updatedAt() : load.startedAt(), Instant.now())));
                return loads.isEmpty() ? "no DataLoads\n" : table.toString();
            });
            return Exit.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One DataLoad's progress and errors.",
            footerHeading = "%nExamples:%n", footer = {"  granary load get 7f3c...", "  granary load get 7f3c... --follow"})
    static final class Get extends GranaryCommand {

        @Parameters(paramLabel = "ID")
        String id;
        @Option(names = "--follow", description = "draw its progress until it ends; exit 6 if it failed, 7 if cancelled")
        boolean follow;
        @Mixin
        Output output;

        @Override
        public Integer call() {
            if (follow) {
                return LoadCommand.follow(this, id);
            }
            DataLoadStatus load = api().get(DATALOADS + "/" + ManagementApi.segment(id), STATUS);
            output.print(out(), json(), load, () -> {
                Table table = new Table().row("Id:", load.id()).row("Dataset:", load.dataset())
                        .row("Phase:", Units.phase(load.phase()))
                        .row("Progress:", Units.percent(ProgressLine.percent(load)))
                        .row("Files:", ProgressLine.files(load))
                        .row("Bytes:", Units.bytes(load.bytesDone()) + " of " + Units.bytes(load.bytesTotal()))
                        .row("Rate:", Units.rate(load.bytesPerSecond()))
                        .row("ETA:", load.etaSeconds() == null ? "-" : Units.duration(load.etaSeconds()))
                        .row("Started:", Units.time(load.startedAt())).row("Finished:", Units.time(load.finishedAt()));
                for (FileError error : load.errors()) {
                    table.row("Error:", (error.path().isEmpty() ? "" : error.path() + ": ") + error.reason());
                }
                return table.toString();
            });
            return Exit.OK;
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Stop a DataLoad (blocks cached stay).",
            footerHeading = "%nExample:%n", footer = "  granary load cancel 7f3c...")
    static final class Cancel extends GranaryCommand {

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            DataLoadStatus load = api().delete(DATALOADS + "/" + ManagementApi.segment(id), STATUS);
            out().println("DataLoad " + id + ": " + Units.phase(load.phase()));
            return Exit.OK;
        }
    }
}
