package rtbox.job.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What rtbox job hands to ctl, and which options are the job's own. */
class JobArgumentsTest {
    @Test
    void aPlanFileIsShortForPlanLocalWithItsMessagesBesideTheReport() {
        assertEquals(List.of("plan", "local", "plans/quick.json", "--out=" + Path.of("out", "mqtt"), "-v"),
                JobCommand.ctlArguments(List.of("plans/quick.json", "--report", "out", "-v")));
        assertEquals(List.of("plan", "local", "p.json", "--out=" + Path.of("r", "mqtt")),
                JobCommand.ctlArguments(List.of("p.json", "--report=r")));
        assertEquals(Path.of("r"), JobCommand.report(List.of("p.json", "--report=r")));
    }

    @Test
    void anyOtherCommandGoesToCtlAsItIsAndAnOptionFirstIsNoCommand() {
        assertEquals(List.of("run", "local", "timer", "-D", "10s"),
                JobCommand.ctlArguments(List.of("run", "local", "timer", "-D", "10s")));
        assertNull(JobCommand.report(List.of("run", "local", "timer", "--report", "r")),
                "--report is the plan shorthand's only");
        assertNull(JobCommand.ctlArguments(List.of("--report", "r")));
        assertNull(JobCommand.ctlArguments(List.of()));
    }

    @Test
    void junitAndCsvAreTheJobsOwnAndTakenOutOfWhatCtlGets() {
        List<String> args = new ArrayList<>(List.of("p.json", "--junit", "j.xml", "--csv=c.csv", "--report", "r"));
        assertEquals(Path.of("j.xml"), JobCommand.takeFileOption(args, "--junit"));
        assertEquals(Path.of("c.csv"), JobCommand.takeFileOption(args, "--csv"));
        assertNull(JobCommand.takeFileOption(args, "--junit"));
        assertEquals(List.of("p.json", "--report", "r"), args);
    }
}
