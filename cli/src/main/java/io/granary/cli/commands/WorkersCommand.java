package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.Exit;
import io.granary.cli.output.Output;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.worker.Tier;
import io.granary.contracts.worker.Worker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/** {@code granary workers}: the cache workers, live or not, with each level's use. */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = "The cache workers: state, hit ratio, bytes served, each level's used/quota (admins).",
        footerHeading = "%nExamples:%n", footer = {"  granary workers", "  granary workers -o yaml"})
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

    static String state(Worker worker) {
        return worker.live() ? "live" : "down";
    }

    static String hitRatio(Worker worker) {
        long reads = worker.hits() + worker.misses();
        return Units.ratio(reads == 0 ? null : (double) worker.hits() / reads);
    }

    static String levels(Worker worker) {
        return worker.tiers().stream().map(WorkersCommand::level).collect(Collectors.joining(" "));
    }

    private static String level(Tier tier) {
        return tier.medium() + " " + Units.bytes(tier.usedBytes()).replace(" ", "") + "/"
                + Units.bytes(tier.quotaBytes()).replace(" ", "");
    }
}
