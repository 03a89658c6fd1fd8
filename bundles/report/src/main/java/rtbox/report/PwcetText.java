package rtbox.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import rtbox.api.result.Pwcet;
import rtbox.api.result.PwcetCheck;
import rtbox.api.result.PwcetEstimate;
import rtbox.api.result.PwcetLevel;

/**
 * The pWCET estimate in words, for the text summary and the HTML report: per estimate, its
 * checks each with its finding, then the levels with their 95 % intervals, or the refusal.
 */
final class PwcetText {
    private PwcetText() {
    }

    static List<String> lines(Pwcet p) {
        List<String> out = new ArrayList<>();
        if (p == null) {
            return out;
        }
        out.add(String.format(Locale.ROOT, "pWCET (extreme value theory on the maxima of blocks of %d samples%s):",
                p.blockSamples(), p.intervalNs() > 0 ? ", per hour at " + p.intervalNs() / 1000 + " us" : ""));
        for (PwcetEstimate e : p.estimates()) {
            for (PwcetCheck c : e.checks()) {
                out.add("  " + e.scope() + ": " + (c.passed() ? "ok   " : "FAILS") + " " + c.name() + ": " + c.detail());
            }
            if (!e.applicable()) {
                out.add("  " + e.scope() + ": " + e.refusal() + "; no estimate");
                continue;
            }
            for (PwcetLevel l : e.levels()) {
                out.add("  " + e.scope() + ": " + level(l));
            }
        }
        return out;
    }

    /** "exceeded with p 1e-09 per hour: 412.3 us (95 % CI 380.1 to 444.5)". */
    static String level(PwcetLevel l) {
        return String.format(Locale.ROOT, "exceeded with p %.0e per %s: %.1f us (95 %% CI %.1f to %.1f)",
                l.probability(), l.per(), l.ns() / 1000, l.lowNs() / 1000, l.highNs() / 1000);
    }
}
