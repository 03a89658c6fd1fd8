package rtbox.job.internal;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The appliance a job runs as its child process ({@code rtbox serve}, id
 * {@link JobCommand#APPLIANCE}): started with this installation's home and its own data
 * folder, connected to the job's broker through a copy of etc/, awaited until it listens
 * for commands, stopped with SIGTERM (it delivers what it holds and says offline). A child
 * that an earlier, killed job left running is stopped before a new one shares its storage.
 */
final class LocalAppliance {
    private final Process process;
    private final Path log;

    private LocalAppliance(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * {@code rtbox serve} with this installation's home (its probes, deploy/ and etc/),
     * its own data folder {@code local}, and etc/ seen through a copy that connects it to
     * the broker at {@code brokerUri} with the shared password file.
     */
    static LocalAppliance start(String launcher, Path local, String brokerUri, Path passwordFile, Path log)
            throws IOException {
        Path home = Path.of(System.getProperty("rtbox.home", ".")).toAbsolutePath();
        Path etc = local.resolve("etc");
        Files.createDirectories(etc);
        try (DirectoryStream<Path> old = Files.newDirectoryStream(etc, "*.cfg")) {
            for (Path f : old) {
                Files.delete(f);
            }
        }
        Path homeEtc = home.resolve("etc");
        if (Files.isDirectory(homeEtc)) {
            try (DirectoryStream<Path> cfgs = Files.newDirectoryStream(homeEtc, "*.cfg")) {
                for (Path f : cfgs) {
                    String name = f.getFileName().toString();
                    // The appliance's own MQTT settings (a site broker) give way to the job's.
                    if (!Set.of("rtbox.mqtt.cfg", "rtbox.broker.cfg").contains(name)) {
                        Files.copy(f, etc.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
        Files.writeString(etc.resolve("rtbox.mqtt.cfg"), String.join("\n",
                "# Written by rtbox job for its appliance: the job's embedded broker, the shared password file.",
                "brokers=" + brokerUri,
                "appliance=" + JobCommand.APPLIANCE,
                "username=" + JobCommand.APPLIANCE,
                "passwordFile=" + passwordFile,
                ""), StandardCharsets.UTF_8);
        stopLeftover(local);
        ProcessBuilder pb = new ProcessBuilder(launcher, "serve");
        pb.environment().put("RTBOX_HOME", home.toString());
        pb.environment().put("RTBOX_DATA", local.toString());
        String opts = System.getenv().getOrDefault("RTBOX_JAVA_OPTS", "");
        pb.environment().put("RTBOX_JAVA_OPTS", (opts + " -Dfelix.fileinstall.dir=" + etc).trim());
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        Files.writeString(local.resolve("appliance.pid"), Long.toString(p.pid()) + "\n", StandardCharsets.UTF_8);
        return new LocalAppliance(p, log);
    }

    /**
     * The appliance of a job that was killed (SIGKILL leaves its child running): stopped
     * before a new one starts on the same framework storage, which two must not share.
     */
    private static void stopLeftover(Path local) throws IOException {
        Path pidFile = local.resolve("appliance.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        String storage = local.resolve("framework").toString();
        try {
            long pid = Long.parseLong(Files.readString(pidFile, StandardCharsets.UTF_8).strip());
            ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().arguments().map(a -> String.join(" ", a).contains(storage)).orElse(false))
                    .ifPresent(h -> {
                        System.err.println("rtbox job: stopping the appliance an earlier job left running (pid " + pid
                                + ")");
                        h.destroy();
                        try {
                            h.onExit().get(30, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            h.destroyForcibly();
                        }
                    });
        } catch (NumberFormatException e) {
            // not ours to read: a new one is written below
        }
        Files.deleteIfExists(pidFile);
    }

    /** Until the appliance subscribed to its commands: false (said why) if it died or took over 2 minutes. */
    boolean awaitOnline(rtbox.broker.LocalBroker broker, PrintWriter err) throws InterruptedException, IOException {
        long end = System.currentTimeMillis() + 120_000;
        String commands = "rtbox/v1/down/" + JobCommand.APPLIANCE + "/cmd/+";
        while (System.currentTimeMillis() < end) {
            if (broker.awaitSubscription(commands, 500)) {
                return true;
            }
            if (!process.isAlive()) {
                err.println("rtbox job: the appliance exited (" + process.exitValue() + ") before it was online;"
                        + " the end of " + log + ":");
                err.println(tail(log, 20));
                return false;
            }
        }
        err.println("rtbox job: the appliance was not online after 120 s; the end of " + log + ":");
        err.println(tail(log, 20));
        return false;
    }

    /** SIGTERM, then SIGKILL after 30 s. */
    void stop() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static String tail(Path file, int lines) throws IOException {
        List<String> all = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
