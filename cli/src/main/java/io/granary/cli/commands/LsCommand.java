package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.CliFailure;
import io.granary.cli.Exit;
import io.granary.cli.api.ManagementApi;
import io.granary.cli.output.Output;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** {@code granary ls DATASET[/PATH]}: a directory of a dataset, each file with how much of it is cached. */
@Command(name = "ls", mixinStandardHelpOptions = true,
        description = "List a dataset's directory: files, sizes, and what is cached.",
        footerHeading = "%nExamples:%n", footer = {"  granary ls imagenet", "  granary ls imagenet/train/ -o json"})
public final class LsCommand extends GranaryCommand {

    private static final int PAGE = 1000;

    @Parameters(paramLabel = "DATASET[/PATH]")
    String target;
    @Option(names = "--max", paramLabel = "N", defaultValue = "10000",
            description = "list at most N entries (default ${DEFAULT-VALUE})")
    int max;
    @Mixin
    Output output;

    /** One line of the listing: a directory (size and cache unknown) or a file. */
    public record Entry(String path, boolean directory, Long size, Long cachedBytes, Instant mtime) {
    }

    @Override
    public Integer call() {
        if (max < 1) {
            throw new CliFailure(Exit.USAGE, "--max must be at least 1, not " + max);
        }
        DatasetPath where = DatasetPath.parse(target);
        String prefix = where.path().isEmpty() || where.path().endsWith("/") ? where.path() : where.path() + "/";
        List<Entry> entries = list(where, prefix);
        if (entries.isEmpty() && !where.path().isEmpty() && !where.path().endsWith("/")) {
            entries = list(where, where.path()).stream().filter(entry -> entry.path().equals(where.path())).toList();
        }
        if (entries.isEmpty() && !where.path().isEmpty()) {
            throw new CliFailure(Exit.NOT_FOUND, "no file or directory " + where);
        }
        List<Entry> shown = entries;
        output.print(out(), json(), shown, () -> {
            Table table = new Table("name", "size", "cached", "modified");
            shown.forEach(entry -> table.row(name(entry.path(), prefix), entry.directory() ? "-" : Units.bytes(entry.size()),
                    entry.directory() ? "" : cached(entry), entry.directory() ? "" : Units.time(entry.mtime())));
            return shown.isEmpty() ? where + " is empty\n" : table.toString();
        });
        return Exit.OK;
    }

    private List<Entry> list(DatasetPath where, String prefix) {
        List<Entry> entries = new ArrayList<>();
        String cursor = null;
        do {
            String uri = where.datasetUri() + "/files?delimiter=/&cached=true&limit=" + Math.min(PAGE, max)
                    + "&prefix=" + ManagementApi.segment(prefix)
                    + (cursor == null ? "" : "&cursor=" + ManagementApi.segment(cursor));
            FileListing page = api().get(uri, new TypeReference<>() {
            });
            page.prefixes().forEach(directory -> entries.add(new Entry(directory, true, null, null, null)));
            for (FileInfo file : page.files()) {
                Long cached = page.cachedBytes() == null ? null : page.cachedBytes().get(file.path());
                entries.add(new Entry(file.path(), false, file.size(), cached, file.mtime()));
            }
            cursor = page.nextCursor();
        } while (cursor != null && entries.size() < max);
        return entries.size() > max ? entries.subList(0, max) : entries;
    }

    private static String name(String path, String prefix) {
        return path.startsWith(prefix) && path.length() > prefix.length() ? path.substring(prefix.length()) : path;
    }

    private static String cached(Entry file) {
        if (file.cachedBytes() == null) {
            return "?";
        }
        if (file.size() == 0 || file.cachedBytes() >= file.size()) {
            return "100%";
        }
        return file.cachedBytes() == 0 ? "-" : Units.percent(100.0 * file.cachedBytes() / file.size());
    }
}
