package io.granary.operator.dataload;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

import java.util.List;

/**
 * What to warm, as Granary's DataLoad has it.
 *
 * @param dataset      the Dataset's name, in this namespace
 * @param targets      directories or files, each with its copies
 * @param files        single files, listed one by one
 * @param metadataOnly refresh the metadata cache only, load no data
 * @param schedule     cron (five fields, or six with seconds first, or {@code @daily}...): run again on it
 * @param priority     higher runs first
 */
@ValidationRule(value = "(has(self.targets) && size(self.targets) > 0) || (has(self.files) && size(self.files) > 0)",
        message = "name at least one target or file to load")
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DataLoadResourceSpec(
        @Required @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$") String dataset,
        @Size(max = 1000) List<DataLoadTarget> targets,
        @Size(max = 10000) List<String> files,
        Boolean metadataOnly,
        @Pattern("^(@(yearly|annually|monthly|weekly|daily|hourly)|[0-9A-Za-z*/,?LW#-]+( +[0-9A-Za-z*/,?LW#-]+){4,5})$")
        String schedule,
        @Min(-1000) @Max(1000) Integer priority) {

    public DataLoadResourceSpec {
        targets = targets == null ? List.of() : List.copyOf(targets);
        files = files == null ? List.of() : List.copyOf(files);
    }
}
