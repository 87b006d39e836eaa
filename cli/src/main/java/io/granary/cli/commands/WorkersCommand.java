package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.Exit;
import io.granary.cli.api.ManagementApi;
import io.granary.cli.output.Output;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** {@code granary workers}: the cache workers, live or not, with each level's use. */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = "The cache workers: state, hit ratio, bytes served, each level's used/quota (admins).",
        subcommands = {WorkersCommand.Drain.class, WorkersCommand.Rejoin.class},
        footerHeading = "%nExamples:%n", footer = {"  granary workers", "  granary workers -o yaml",
                "  granary workers drain worker-8086"})
public final class WorkersCommand extends GranaryCommand {

    static final String WORKERS = "/api/v1/workers";
    static final TypeReference<List<Worker>> LIST = new TypeReference<>() {
    };

    @Mixin
    Output output;

    @Override
    public Integer call() {
        List<Worker> workers = api().get(WORKERS, LIST);
        Instant now = Instant.now();
        output.print(out(), json(), workers, () -> {
            Table table = new Table("id", "node", "state", "up", "hit", "served", "levels (used/quota)");
            workers.forEach(worker -> table.row(worker.id(), worker.node(), state(worker),
                    Units.age(worker.startedAt(), now),
                    hitRatio(worker), Units.bytes(worker.bytesServed()), levels(worker)));
            return workers.isEmpty() ? "no workers have reported yet\n" : table.toString();
        });
        return Exit.OK;
    }

    @Command(name = "drain", mixinStandardHelpOptions = true,
            description = "Have a worker hand its blocks to their next owners and drop them, so it can be stopped "
                    + "without losing cache.",
            footerHeading = "%nExample:%n", footer = "  granary workers drain worker-8086   # then: granary workers")
    static final class Drain extends GranaryCommand {

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            DrainStatus drain = api().post(WORKERS + "/" + ManagementApi.segment(id) + "/drain", null,
                    new TypeReference<DrainStatus>() {
                    });
            out().println("worker " + id + " is draining (" + drain.blocks() + " blocks); granary workers shows "
                    + "how far; stop it once it is drained");
            return Exit.OK;
        }
    }

    @Command(name = "rejoin", mixinStandardHelpOptions = true,
            description = "Make a drained or draining worker an owner of blocks again.",
            footerHeading = "%nExample:%n", footer = "  granary workers rejoin worker-8086")
    static final class Rejoin extends GranaryCommand {

        @Parameters(paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            api().delete(WORKERS + "/" + ManagementApi.segment(id) + "/drain");
            out().println("worker " + id + " owns blocks again");
            return Exit.OK;
        }
    }

    static String state(Worker worker) {
        if (!worker.live()) {
            return "down";
        }
        return worker.drain() == null ? "live" : Units.phase(worker.drain().phase()).toLowerCase(Locale.ROOT) + " "
                + worker.drain().moved() + "/" + worker.drain().blocks();
    }

    static String hitRatio(Worker worker) {
        long reads = worker.hits() + worker.misses();
        return Units.ratio(reads == 0 ? null : (double) worker.hits() / reads);
    }

    static String levels(Worker worker) {
        return worker.levels().stream().map(WorkersCommand::level).collect(Collectors.joining(" "));
    }

    private static String level(WorkerLevel level) {
        return level.medium() + " " + Units.bytes(level.usedBytes()).replace(" ", "") + "/"
                + Units.bytes(level.quotaBytes()).replace(" ", "");
    }
}
