package rtbox.cli.internal;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Appliance mode: keeps the framework running, so that bundles dropped into deploy/
 * start and configuration in etc/ applies, until the process is stopped.
 */
@Command(name = "serve", description = "Runs as the appliance until stopped (SIGTERM).")
class ServeCommand implements Callable<Integer> {
    private final CountDownLatch stopped;
    @Spec
    CommandSpec spec;

    ServeCommand(CountDownLatch stopped) {
        this.stopped = stopped;
    }

    @Override
    public Integer call() throws InterruptedException {
        spec.commandLine().getOut().println("rtbox: serving; stop with SIGTERM");
        spec.commandLine().getOut().flush();
        stopped.await();
        return Cli.OK;
    }
}
