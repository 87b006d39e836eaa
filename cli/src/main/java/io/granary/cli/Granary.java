package io.granary.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.granary.cli.api.ManagementApi;
import io.granary.cli.commands.CacheCommand;
import io.granary.cli.commands.DatasetCommand;
import io.granary.cli.commands.LoadCommand;
import io.granary.cli.commands.LsCommand;
import io.granary.cli.commands.TopCommand;
import io.granary.cli.commands.WorkersCommand;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.net.URI;
import java.util.Map;

/**
 * {@code granary}: what an operator does every day (datasets, files, DataLoads, caches, workers) through the
 * gateway's management API, without typing JSON. {@code ./granary} runs it for every command it does not own.
 */
@Command(name = "granary", mixinStandardHelpOptions = true, versionProvider = Granary.Version.class,
        description = "Granary from a terminal: datasets, files, DataLoads, caches and workers.",
        subcommands = {DatasetCommand.class, LsCommand.class, LoadCommand.class, CacheCommand.class,
                WorkersCommand.class, TopCommand.class, AutoComplete.GenerateCompletion.class},
        footerHeading = "%nExamples:%n",
        footer = {"  granary dataset create photos --mount file:///data/photos --wait",
                "  granary load photos --follow",
                "  granary ls photos/train/ -o json",
                "",
                "Environment:",
                "  GRANARY_ENDPOINT  the gateway (default " + Granary.DEFAULT_ENDPOINT + ")",
                "  GRANARY_TOKEN     the caller's bearer token (eval \"$(./granary env)\" sets it)",
                "",
                "Exit codes: 0 done, 1 refused (bad input), 2 bad command line, 3 not found,",
                "  4 no credentials or not allowed, 5 gateway unreachable or failing,",
                "  6 a followed DataLoad failed, 7 it was cancelled."})
public final class Granary implements Runnable {

    public static final String DEFAULT_ENDPOINT = "http://127.0.0.1:8080";

    private final Map<String, String> env;
    private final boolean terminal;
    private final ObjectMapper json = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);
    private ManagementApi api;

    @Spec
    CommandSpec spec;

    /**
     * @param env      where GRANARY_ENDPOINT and GRANARY_TOKEN come from
     * @param terminal whether output goes to a terminal (progress bars redraw in place there)
     */
    public Granary(Map<String, String> env, boolean terminal) {
        this.env = Map.copyOf(env);
        this.terminal = terminal;
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.getenv(), System.console() != null).execute(args));
    }

    /** The whole command tree, failures printed as one line with their exit code. */
    public static CommandLine commandLine(Map<String, String> env, boolean terminal) {
        CommandLine line = new CommandLine(new Granary(env, terminal));
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setParameterExceptionHandler((failure, args) -> {
            CommandLine command = failure.getCommandLine();
            command.getErr().println("granary: " + failure.getMessage() + " (see: "
                    + command.getCommandSpec().qualifiedName(" ") + " --help)");
            command.getErr().flush();
            return Exit.USAGE;
        });
        line.setExecutionExceptionHandler((failure, commandLine, parsed) -> {
            if (failure instanceof CliFailure cli) {
                commandLine.getErr().println("granary: " + cli.getMessage());
                commandLine.getErr().flush();
                return cli.exitCode();
            }
            throw failure;
        });
        line.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false)
                .description("a bash/zsh completion script: source <(./granary generate-completion)");
        return line;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public ManagementApi api() {
        if (api == null) {
            String endpoint = env.getOrDefault("GRANARY_ENDPOINT", "");
            URI uri;
            try {
                uri = URI.create(endpoint.isBlank() ? DEFAULT_ENDPOINT : endpoint.strip());
            } catch (IllegalArgumentException e) {
                throw new CliFailure(Exit.USAGE, "GRANARY_ENDPOINT is not a URL: " + endpoint);
            }
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new CliFailure(Exit.USAGE, "GRANARY_ENDPOINT must be http(s)://host:port, not " + endpoint);
            }
            api = new ManagementApi(uri, env.get("GRANARY_TOKEN"), json, spec.commandLine().getErr());
        }
        return api;
    }

    public ObjectMapper json() {
        return json;
    }

    public boolean terminal() {
        return terminal;
    }

    /** The version the jar's manifest carries. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Granary.class.getPackage().getImplementationVersion();
            return new String[]{"granary " + (version == null ? "(built from source)" : version)};
        }
    }
}
