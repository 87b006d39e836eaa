package io.granary.cli.output;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TableTest {

    @Test
    void columnsAreAsWideAsTheirWidestCellAndUpperCased() {
        String table = new Table("name", "size").row("photos", "1.0 MiB").row("a", "12 B").toString();

        assertThat(table.lines()).containsExactly("NAME    SIZE", "photos  1.0 MiB", "a       12 B");
    }

    @Test
    void aTableTooWideForATerminalNarrowsItsWidestColumnAndWrapsItsCells() {
        String table = new Table("path", "size").row("train/" + "x".repeat(100) + ".jpg", "1 B").toString();

        assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(Table.WIDTH));
        assertThat(table.replaceAll("\\s", "")).contains("train/" + "x".repeat(100) + ".jpg");
    }

    @Test
    void aKeptColumnIsNeverNarrowed() {
        String id = "load-" + "0123456789".repeat(4);
        String table = new Table("id", "dataset", "phase").keep(0).row(id, "d".repeat(40), "Complete").toString();

        assertThat(table.lines().skip(1).findFirst().orElseThrow()).startsWith(id + " ");
        assertThat(table.lines()).allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(Table.WIDTH));
    }

    @Test
    void withoutHeadersItIsAListOfKeyValueLines() {
        assertThat(new Table().row("Name:", "photos").row("Phase:", "Bound").toString().lines())
                .containsExactly("Name:   photos", "Phase:  Bound");
    }
}
