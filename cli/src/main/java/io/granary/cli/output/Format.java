package io.granary.cli.output;

/** How a read command prints what it read: a table for people, JSON or YAML for scripts. */
public enum Format {
    TABLE, JSON, YAML
}
