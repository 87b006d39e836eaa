package io.granary.cli.commands;

import io.granary.cli.Exit;
import io.granary.cli.api.ManagementApi;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code granary cache free DATASET[/PATH]}: drop cached blocks on every worker; the under-store keeps the data. */
@Command(name = "cache", mixinStandardHelpOptions = true, description = "Manage what the workers cache.",
        subcommands = CacheCommand.Free.class, footerHeading = "%nExample:%n",
        footer = "  granary cache free photos/train/")
public final class CacheCommand extends CommandGroup {

    @Command(name = "free", mixinStandardHelpOptions = true,
            description = "Free the cache of a dataset, or of a file or directory in it, on every worker.",
            footerHeading = "%nExamples:%n", footer = {"  granary cache free imagenet", "  granary cache free imagenet/train/"})
    static final class Free extends GranaryCommand {

        @Parameters(paramLabel = "DATASET[/PATH]")
        String target;

        @Override
        public Integer call() {
            DatasetPath where = DatasetPath.parse(target);
            api().delete(where.datasetUri() + "/cache" + (where.path().isEmpty() ? ""
                    : "?path=" + ManagementApi.segment(where.path())));
            out().println("freeing the cache of " + where + " on every worker (granary dataset get " + where.dataset()
                    + " shows it fall)");
            return Exit.OK;
        }
    }
}
