package io.granary.cli.commands;

import com.fasterxml.jackson.core.type.TypeReference;
import io.granary.cli.Exit;
import io.granary.cli.output.Output;
import io.granary.cli.output.Table;
import io.granary.cli.output.Units;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.Mount;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** {@code granary dataset ...}: a bucket of the under-store mounted as a dataset, and what became of it. */
@Command(name = "dataset", description = "Create, list, inspect, sync and delete datasets.",
        mixinStandardHelpOptions = true, footerHeading = "%nExamples:%n",
        footer = {"  granary dataset create photos --mount file:///data/photos --wait", "  granary dataset ls -o json"},
        subcommands = {DatasetCommand.Create.class, DatasetCommand.Listing.class, DatasetCommand.Get.class,
                DatasetCommand.Remove.class, DatasetCommand.Sync.class})
public final class DatasetCommand extends CommandGroup {

    static final String DATASETS = "/api/v1/datasets";
    private static final TypeReference<Dataset> DATASET = new TypeReference<>() {
    };

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Mount an under-store location as a dataset (and S3 bucket) NAME.",
            footerHeading = "%nExamples:%n",
            footer = {"  granary dataset create imagenet --mount s3://datasets/imagenet \\",
                    "      --credentials-ref s3-creds --option endpoint=http://minio:9000 --wait",
                    "  granary dataset create logs --mount hdfs://namenode:8020/warehouse/logs --credentials-ref hdfs-etl",
                    "  granary dataset create scratch --mount file:///data/scratch --block-size 4MiB"})
    static final class Create extends GranaryCommand {

        @Parameters(paramLabel = "NAME", description = "DNS-1123 label; also the S3 bucket name")
        String name;
        @Option(names = "--mount", required = true, paramLabel = "URI",
                description = "s3://bucket/prefix, hdfs://namenode:port/path or file:///path")
        String uri;
        @Option(names = "--credentials-ref", paramLabel = "REF",
                description = "the secret holding the store's keys or HDFS user/keytab (never the keys themselves)")
        String credentialsRef;
        @Option(names = "--option", paramLabel = "KEY=VALUE", description = "a mount option: endpoint, region, pathStyle; nameservice, namenodes, principal, dfs.*...")
        Map<String, String> options = new LinkedHashMap<>();
        @Option(names = "--block-size", paramLabel = "SIZE", description = "e.g. 16MiB (default)")
        String blockSize;
        @Option(names = "--replicas", paramLabel = "N", description = "cache copies of each block (default 1)")
        Integer replicas;
        @Option(names = "--node-selector", paramLabel = "LABEL=VALUE", description = "labels a worker must carry")
        Map<String, String> nodeSelector = new LinkedHashMap<>();
        @Option(names = "--metadata-ttl", paramLabel = "DURATION", description = "resync metadata after, e.g. 10m")
        String metadataTtl;
        @Option(names = "--read-only", description = "refuse writes through the gateway")
        boolean readOnly;
        @Option(names = "--cache-share", paramLabel = "FRACTION",
                description = "the share of every worker's cache it keeps against other datasets, e.g. 0.3")
        Double cacheShare;
        @Option(names = "--wait", description = "wait until the dataset is Bound (exit 1 if it Failed)")
        boolean await;
        @Mixin
        Output output;

        @Override
        public Integer call() throws InterruptedException {
            DatasetSpec request = new DatasetSpec(name, List.of(new Mount(uri, null, options, credentialsRef)),
                    blockSize, replicas, nodeSelector, metadataTtl, readOnly ? Boolean.TRUE : null, null, cacheShare);
            Dataset created = api().post(DATASETS, request, DATASET);
            Dataset dataset = await ? awaitBound(created) : created;
            output.print(out(), json(), dataset, () -> "dataset " + name + " created: " + describe(dataset.status())
                    + "\n");
            return dataset.status().phase() == DatasetPhase.FAILED ? Exit.REFUSED : Exit.OK;
        }

        private Dataset awaitBound(Dataset created) throws InterruptedException {
            Dataset dataset = created;
            String uri = DatasetPath.uri(name);
            while (dataset.status().phase() == DatasetPhase.PENDING) {
                Thread.sleep(250);
                dataset = api().get(uri, DATASET);
            }
            if (dataset.status().phase() == DatasetPhase.FAILED) {
                err().println("granary: dataset " + name + " failed: " + dataset.status().reason());
            }
            return dataset;
        }
    }

    @Command(name = "ls", aliases = "list", mixinStandardHelpOptions = true,
            description = "Every dataset the caller may see, with its cache.",
            footerHeading = "%nExamples:%n", footer = {"  granary dataset ls", "  granary dataset ls -o json"})
    static final class Listing extends GranaryCommand {

        @Mixin
        Output output;

        @Override
        public Integer call() {
            java.util.List<Dataset> datasets = api().get(DATASETS, new TypeReference<>() {
            });
            output.print(out(), json(), datasets, () -> {
                Table table = new Table("name", "phase", "files", "size", "cached", "hit", "mount");
                datasets.forEach(dataset -> table.row(dataset.name(), Units.phase(dataset.status().phase()),
                        dataset.status().fileCount(), Units.bytes(dataset.status().ufsTotalBytes()),
                        Units.percent(dataset.status().cachedPercentage()), Units.ratio(dataset.status().hitRatio()),
                        dataset.spec().mounts().stream().map(Mount::uri).collect(Collectors.joining(" "))));
                return datasets.isEmpty() ? "no datasets yet: granary dataset create NAME --mount URI\n"
                        : table.toString();
            });
            return Exit.OK;
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "One dataset: its spec and status.",
            footerHeading = "%nExample:%n", footer = "  granary dataset get imagenet -o yaml")
    static final class Get extends GranaryCommand {

        @Parameters(paramLabel = "NAME")
        String name;
        @Mixin
        Output output;

        @Override
        public Integer call() {
            Dataset dataset = api().get(DatasetPath.uri(name), DATASET);
            output.print(out(), json(), dataset, () -> details(dataset));
            return Exit.OK;
        }

        private static String details(Dataset dataset) {
            DatasetSpec spec = dataset.spec();
            DatasetStatus status = dataset.status();
            Table table = new Table().row("Name:", spec.name()).row("Phase:", Units.phase(status.phase()));
            if (status.reason() != null) {
                table.row("Reason:", status.reason());
            }
            table.row("Files:", status.fileCount()).row("Size:", Units.bytes(status.ufsTotalBytes()))
                    .row("Cached:", Units.bytes(status.cachedBytes()) + " (" + Units.percent(status.cachedPercentage())
                            + ")")
                    .row("Hit ratio:", Units.ratio(status.hitRatio()))
                    .row("Read:", Units.bytes(status.bytesRead()))
                    .row("Block size:", spec.blockSize()).row("Replicas:", spec.replicas());
            for (Mount mount : spec.mounts()) {
                table.row("Mount:", mount.uri() + (mount.name() == null || mount.name().isEmpty() ? ""
                        : " at " + mount.name() + "/") + (mount.credentialsRef() == null ? ""
                        : " (credentials: " + mount.credentialsRef() + ")"));
            }
            if (!spec.nodeSelector().isEmpty()) {
                table.row("Nodes:", spec.nodeSelector());
            }
            return table.row("Created:", Units.time(status.createdAt()))
                    .row("Synced:", Units.time(status.syncedAt()) + (status.syncedAt() == null ? ""
                            : " (" + Units.age(status.syncedAt(), Instant.now()) + " ago)")).toString();
        }
    }

    @Command(name = "rm", aliases = "delete", mixinStandardHelpOptions = true,
            description = "Delete a dataset: its metadata and cache (the under-store keeps its files).",
            footerHeading = "%nExample:%n", footer = "  granary dataset rm scratch")
    static final class Remove extends GranaryCommand {

        @Parameters(paramLabel = "NAME")
        String name;

        @Override
        public Integer call() {
            api().delete(DatasetPath.uri(name));
            out().println("dataset " + name + " deleted");
            return Exit.OK;
        }
    }

    @Command(name = "sync", mixinStandardHelpOptions = true,
            description = "List the dataset's files from the under-store again.",
            footerHeading = "%nExample:%n", footer = "  granary dataset sync imagenet")
    static final class Sync extends GranaryCommand {

        @Parameters(paramLabel = "NAME")
        String name;

        @Override
        public Integer call() {
            api().post(DatasetPath.uri(name) + "/sync");
            out().println("dataset " + name + ": sync started (granary dataset get " + name + " shows when it ends)");
            return Exit.OK;
        }
    }

    private static String describe(DatasetStatus status) {
        return Units.phase(status.phase()) + (status.phase() == DatasetPhase.PENDING ? " (listing its files)"
                : ", " + status.fileCount() + " files, " + Units.bytes(status.ufsTotalBytes()));
    }
}
