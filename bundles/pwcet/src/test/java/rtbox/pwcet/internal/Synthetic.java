package rtbox.pwcet.internal;

import java.util.Random;

/** Block maxima drawn from known distributions, by the inverse of their distribution function. */
final class Synthetic {
    private Synthetic() {
    }

    static long[] gev(int n, double mu, double sigma, double xi, long seed) {
        Random r = new Random(seed);
        long[] x = new long[n];
        for (int i = 0; i < n; i++) {
            double u = r.nextDouble();
            double y = -Math.log(u); // G(x) = u
            x[i] = Math.round(xi == 0 ? mu - sigma * Math.log(y) : mu + sigma / xi * (Math.pow(y, -xi) - 1));
        }
        return x;
    }

    static long[] gumbel(int n, double mu, double sigma, long seed) {
        return gev(n, mu, sigma, 0, seed);
    }
}
