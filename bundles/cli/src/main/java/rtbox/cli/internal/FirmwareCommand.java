package rtbox.cli.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.osgi.service.component.annotations.Component;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import rtbox.cli.Subcommand;
import rtbox.os.BootConfig;
import rtbox.os.BootPartition;
import rtbox.os.Preemption;

/**
 * {@code rtbox firmware kernel [ENTRY] [--reboot]}: the kernel the rtbox image's next boot
 * starts (the entries of its SYSLINUX configuration: {@code stock}, Debian's 686 kernel, and
 * {@code rt}, its PREEMPT_RT kernel). rtbox.os's {@link BootPartition} does the work, as for
 * the MQTT verb {@code firmware}; off the image it says that this machine is not one.
 */
@Component(service = Subcommand.class)
@Command(name = "firmware", description = "The rtbox image's firmware: which kernel the next boot starts.",
        subcommands = FirmwareCommand.Kernel.class)
public class FirmwareCommand implements Callable<Integer>, Subcommand {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return Cli.OK;
    }

    @Command(name = "kernel", description = {"Shows the kernel running and the one the next boot starts; with an"
            + " ENTRY (stock or rt on the rtbox image), makes that the next boot's kernel.",
            "The choice is written to the image's boot partition (syslinux.cfg's DEFAULT) at once; the kernel"
                    + " starts at the next boot, now with --reboot."})
    static class Kernel implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(arity = "0..1", paramLabel = "ENTRY", description = "the boot entry: stock or rt")
        String entry;
        @Option(names = "--reboot", description = "reboot now, through init (the appliance is stopped first)")
        boolean reboot;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut(), err = spec.commandLine().getErr();
            Path config = BootPartition.config();
            if (reboot && entry == null) {
                err.println("rtbox firmware kernel: --reboot needs the ENTRY to start (stock or rt)");
                return 2;
            }
            try {
                BootConfig now = BootPartition.read(config);
                String running = "running: " + (BootPartition.booted().isEmpty() ? "(no entry on the command line)"
                        : BootPartition.booted()) + ", " + rtbox.os.Procfs.kernel("osrelease") + ", "
                        + Preemption.model();
                if (entry == null) {
                    out.println(running);
                    out.println("next boot: " + now.defaultLabel() + " (entries: " + String.join(", ", now.labels())
                            + ")");
                    return Cli.OK;
                }
                if (!now.labels().contains(entry)) {
                    err.println("rtbox firmware kernel: no boot entry '" + entry + "' in " + config + ": it has "
                            + String.join(", ", now.labels()));
                    return 2;
                }
                String was = BootPartition.choose(config, entry);
                out.println("next boot: " + entry + (entry.equals(was) ? " (as it was)" : " (was " + was + ")"));
                if (reboot) {
                    out.println("rebooting now");
                    out.flush();
                    BootPartition.reboot();
                } else {
                    out.println("not rebooting: --reboot, or the next reboot, starts it (" + running + ")");
                }
                return Cli.OK;
            } catch (BootPartition.NotTheImage e) {
                err.println("rtbox firmware kernel: " + e.getMessage());
                return Cli.ERROR;
            } catch (IOException | rtbox.os.OsException e) {
                err.println("rtbox firmware kernel: " + (entry == null ? "cannot read " + config
                        : "cannot make '" + entry + "' the next boot's kernel in " + config) + ": " + e.getMessage()
                        + (entry == null ? "" : "; the boot configuration is as it was"));
                return Cli.ERROR;
            }
        }
    }
}
