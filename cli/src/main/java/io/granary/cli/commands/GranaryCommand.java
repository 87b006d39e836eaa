package io.granary.cli.commands;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.cli.Granary;
import io.granary.cli.api.ManagementApi;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** What every command reaches: the API, the JSON mapper, where to print. Answers an exit code. */
abstract class GranaryCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    Granary granary() {
        return (Granary) spec.root().userObject();
    }

    ManagementApi api() {
        return granary().api();
    }

    ObjectMapper json() {
        return granary().json();
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
