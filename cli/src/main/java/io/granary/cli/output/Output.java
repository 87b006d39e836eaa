package io.granary.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.function.Supplier;

/** The {@code -o} option every read command has, and the printing it chooses. */
public final class Output {

    @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
            description = "table, json or yaml (default: ${DEFAULT-VALUE})")
    Format format = Format.TABLE;

    /** The value as the format says: {@code table} for people, the API's own JSON or its YAML for scripts. */
    public void print(PrintWriter out, ObjectMapper json, Object value, Supplier<String> table) {
        try {
            switch (format) {
                case TABLE -> out.print(table.get());
                case JSON -> out.println(json.copy().enable(SerializationFeature.INDENT_OUTPUT)
                        .writeValueAsString(value));
                case YAML -> out.print(json.copyWith(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                        .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)).writeValueAsString(value));
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot print " + value.getClass().getSimpleName(), e);
        }
        out.flush();
    }
}
