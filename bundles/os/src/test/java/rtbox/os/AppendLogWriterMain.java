package rtbox.os;

import java.nio.file.Path;

/** A child process for AppendLogTest: appends big records until killed, saying which are in. */
public final class AppendLogWriterMain {
    private AppendLogWriterMain() {
    }

    public static void main(String[] args) throws Exception {
        AppendLog j = new AppendLog(Path.of(args[0]));
        String pad = "x".repeat(256 * 1024);
        for (int i = 0; ; i++) {
            j.append("{\"seq\":" + i + ",\"pad\":\"" + pad + "\"}");
            System.out.println("appended " + i);
            System.out.flush();
        }
    }
}
