package rtbox.core.internal;

/** A child JVM for {@link SafepointRotationTest}: many collections (safepoints) between two stamps. */
public final class SafepointChildMain {
    private SafepointChildMain() {
    }

    public static void main(String[] args) {
        long from = System.nanoTime();
        for (int i = 0; i < Integer.parseInt(args[0]); i++) {
            System.gc();
        }
        long to = System.nanoTime();
        System.out.println(from + " " + to);
    }
}
