package io.tailwatch.cli;

import io.tailwatch.tools.runbook.AgentClient;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine.Mixin;

/**
 * A command that reads the running agent: the options that say where it is and how to reach it
 * ({@link AgentOptions}), the client made from them, and the same exits for all such commands: the
 * options are wrong (a message from {@link AgentOptions#client}, {@code EXIT_CONFIG}), or a request
 * fails (its message, {@code EXIT_FAILURE}).
 */
abstract class AgentCommand extends PrintingCommand {
    @Mixin
    AgentOptions agent;

    @Override
    protected final int run(PrintWriter out, PrintWriter err) {
        AgentClient client = agent.client();
        if (client == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        try {
            return run(client, out, err);
        } catch (IOException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
    }

    /** Runs the command against the agent; an IOException is a failed request. */
    protected abstract int run(AgentClient client, PrintWriter out, PrintWriter err) throws IOException;
}
