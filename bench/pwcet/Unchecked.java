import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Locale;

import rtbox.pwcet.internal.Estimation;
import rtbox.pwcet.internal.GevFit;

/**
 * What a refused estimate would have said, had the checks been ignored: the same fits as
 * rtbox.pwcet's (its GevFit, and Estimation's choice between GEV and Gumbel by the shape's interval), on
 * the block maxima of a short run, and the levels a longer run's maximum exceeds with
 * probability 0.5 and 0.05. For run.sh's table: whether the refusals kept out estimates that
 * would not have covered.
 *
 *   java -cp bundles/pwcet/target/rtbox.pwcet-*.jar bench/pwcet/Unchecked.java < lines
 *
 * One line in per short run: "label blocks-of-the-long-run max1 max2 ..." (ns); one line out:
 * "label model tail shape level-q0.5 level-q0.05" (ns), or "label none - 0 0 0" without a fit.
 */
public class Unchecked {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 3) {
                continue;
            }
            double m = Double.parseDouble(f[1]);
            double[] x = new double[f.length - 2];
            for (int i = 0; i < x.length; i++) {
                x[i] = Double.parseDouble(f[i + 2]);
            }
            try {
                GevFit gumbel = GevFit.gumbel(x), gev = GevFit.gev(x);
                String tail = Estimation.tail(gev);
                GevFit used = Estimation.levelsFrom(tail, gumbel, gev);
                System.out.println(String.format(Locale.ROOT, "%s %s %s %.3f %.0f %.0f", f[0],
                        used.gumbel ? "gumbel" : "gev", tail, gev.shape,
                        used.level(-Math.log1p(-0.5) / m), used.level(-Math.log1p(-0.05) / m)));
            } catch (RuntimeException e) {
                System.out.println(f[0] + " none - 0 0 0");
            }
        }
    }
}
