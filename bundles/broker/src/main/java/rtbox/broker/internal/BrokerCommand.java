package rtbox.broker.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.Designate;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import rtbox.cli.Subcommand;

/**
 * {@code rtbox broker}: the embedded broker on its own, until the process is stopped,
 * for a control room on this machine ({@code rtbox ctl}) and appliances configured
 * with {@code passwordFile}. A {@link Subcommand} of rtbox.cli's; the
 * broker runs only while the command does, and a stopping framework stops it.
 */
@Component(service = Subcommand.class, configurationPid = "rtbox.broker",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = BrokerConfig.class)
@Command(name = "broker", description = "Runs the embedded MQTT broker (Moquette) on 127.0.0.1 until stopped (SIGTERM).")
public class BrokerCommand implements Callable<Integer>, Subcommand {
    @Spec
    CommandSpec spec;
    @Option(names = "--port", description = "TCP port on 127.0.0.1 (default: the configuration's, 1883; 0: a free one).")
    Integer port;

    private BrokerConfig config;
    private BundleContext context;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile EmbeddedBroker running;

    @Activate
    void activate(BundleContext context, BrokerConfig config) {
        this.context = context;
        this.config = config;
    }

    @Deactivate
    void deactivate() {
        stopped.countDown();
        // Stopped here, not only by call() on the main thread: the bundle must not stop while the broker runs.
        EmbeddedBroker b = running;
        if (b != null) {
            b.close();
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path passwordFile = passwordFile(context, config);
        try (EmbeddedBroker b = EmbeddedBroker.start(port != null ? port : config.port(), config.maxMessageBytes(),
                EmbeddedBroker.password(passwordFile))) {
            running = b;
            out.println("rtbox broker: listening on " + b.uri() + " (127.0.0.1 only); password in " + passwordFile
                    + "; stop with SIGTERM");
            out.flush();
            stopped.await();
        } catch (IOException | IllegalArgumentException e) {
            err.println("rtbox broker: " + e.getMessage());
            return 2;
        }
        return 0;
    }

    /** The configured password file, or broker/password in the data folder (beside the framework storage). */
    static Path passwordFile(BundleContext context, BrokerConfig config) {
        if (config.passwordFile() != null && !config.passwordFile().isBlank()) {
            return Path.of(config.passwordFile()).toAbsolutePath();
        }
        return dataDir(context).resolve("broker").resolve("password");
    }

    static Path dataDir(BundleContext context) {
        String storage = context.getProperty("launch.storage.dir");
        return storage != null ? Path.of(storage).toAbsolutePath().getParent()
                : context.getDataFile("").toPath().toAbsolutePath();
    }
}
