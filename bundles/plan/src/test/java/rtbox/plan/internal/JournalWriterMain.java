package rtbox.plan.internal;

import java.nio.file.Path;

/** A child process for JournalTest: appends big records until killed, saying which are in. */
public final class JournalWriterMain {
    private JournalWriterMain() {
    }

    public static void main(String[] args) throws Exception {
        Journal j = new Journal(Path.of(args[0]));
        String pad = "x".repeat(256 * 1024);
        for (int i = 0; ; i++) {
            j.append("{\"seq\":" + i + ",\"pad\":\"" + pad + "\"}");
            System.out.println("appended " + i);
            System.out.flush();
        }
    }
}
