package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rtbox ctl plan} and {@code rtbox ctl results} against two real appliances on a
 * real mosquitto: a plan on both, followed cell by cell, exits with the verdict (a
 * threshold of 1 us fails on any machine); an unknown plan name and an appliance that
 * does not answer exit 2 naming them; results lists the journal and fetches a run again.
 */
class CtlPlanIT extends MqttFixture {
    @TempDir
    Path ctlHome;
    @TempDir
    Path homeB;

    private Rtbox.Result ctl(String verb, String... args) throws Exception {
        try (Rtbox c = new Rtbox(Files.createTempDirectory(ctlHome, "ctl"))) {
            return c.run(180, ctlCommand(verb, args));
        }
    }

    @Test
    void planOnTwoAppliancesThenTheirResults() throws Exception {
        serve(false);
        try (Rtbox b = new Rtbox(homeB)) {
            MqttIT.configure(b, broker, "b1");
            Files.createDirectories(homeB.resolve("plans"));
            b.start("serve");
            assertNotNull(control.await(m -> m.topic().equals("rtbox/v1/up/b1/status")
                    && m.payload().contains("\"online\""), 30_000), "b1 not online: " + b.err);
            Path plan = ctlHome.resolve("strict.json");
            Files.writeString(plan, "{\"rtbox_plan\":1,\"name\":\"strict\",\"probe\":\"timer\",\"duration\":\"1s\","
                    + "\"warmup\":\"0\",\"thresholds\":{\"max_us\":1},\"cells\":[{\"name\":\"one\"},{\"name\":\"two\"}]}");
            Path out = ctlHome.resolve("out");
            Rtbox.Result r = ctl("plan", "a1,b1", plan.toString(), "--out", out.toString());
            assertEquals(1, r.exitCode(), r.stdout() + r.stderr());
            for (String a : new String[] {"a1", "b1"}) {
                assertTrue(r.stdout().contains(a + ": plan strict started as run "), r.stdout());
                assertTrue(r.stdout().contains(a + ": cell 1/2 one started"), r.stdout());
                // FAIL against max_us 1, or INCONCLUSIVE where the worst wake-up was a JVM pause (a young GC
                // landed in a 1 s cell on the loaded CI machine in two runs of this session).
                assertTrue(r.stdout().matches("(?s).*" + a + ": cell 2/2 two: (FAIL|INCONCLUSIVE), max .*"), r.stdout());
                // FAIL overall; a cell whose worst wake-up was a GC under a loaded machine is INCONCLUSIVE
                // instead of FAIL ("1 of 2 cells failed"), which is right and not this test's subject.
                assertTrue(r.stdout().contains(a + ": plan strict FAIL (complete, 2 of 2 cells): "), r.stdout());
            }
            Matcher m = Pattern.compile("a1: plan strict started as run (\\S+):").matcher(r.stdout());
            assertTrue(m.find(), r.stdout());
            String run = m.group(1);
            assertTrue(Files.exists(out.resolve("a1-" + run + ".json")));
            assertTrue(Files.exists(out.resolve("a1-" + run + "-cell-2.json")));

            // A name the appliance does not have, and an appliance that is not there.
            Rtbox.Result unknown = ctl("plan", "b1", "nosuch");
            assertEquals(2, unknown.exitCode(), unknown.stdout() + unknown.stderr());
            assertTrue(unknown.stderr().contains("b1: 404 no plan 'nosuch' in " + homeB.resolve("plans")),
                    unknown.stderr());
            Rtbox.Result nobody = ctl("plan", "nobody", plan.toString());
            assertEquals(2, nobody.exitCode());
            assertTrue(nobody.stderr().contains("nobody: no reply"), nobody.stderr());

            Rtbox.Result list = ctl("results", "a1");
            assertEquals(0, list.exitCode(), list.stderr());
            assertTrue(list.stdout().matches("(?s).*" + run + " +strict +complete +FAIL .* 2/2\n.*"), list.stdout());
            Rtbox.Result again = ctl("results", "a1", run);
            assertEquals(1, again.exitCode(), again.stdout() + again.stderr());
            assertTrue(again.stdout().contains("a1: publishing run " + run + " again"), again.stdout());
            // Published again with the verdict it had the first time.
            Matcher first = Pattern.compile("a1: cell 1/2 one: (\\w+)").matcher(r.stdout());
            assertTrue(first.find(), r.stdout());
            assertTrue(again.stdout().contains("a1: cell 1/2 one: " + first.group(1)), again.stdout());
            assertTrue(again.stdout().contains("a1: plan strict FAIL (complete, 2 of 2 cells)"), again.stdout());
            Rtbox.Result missing = ctl("results", "a1", "20000101-000000-0000");
            assertEquals(2, missing.exitCode());
            assertTrue(missing.stderr().contains("a1: 404 no run '20000101-000000-0000'"), missing.stderr());
        }
    }
}
