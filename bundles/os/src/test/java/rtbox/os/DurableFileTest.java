package rtbox.os;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableFileTest {
    @TempDir
    Path dir;

    private List<String> names(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void replacesTheWholeFileAndLeavesNoTemporaryBehind() throws Exception {
        Path f = dir.resolve("sub/state");
        DurableFile.write(f, "first, and longer\n".getBytes(StandardCharsets.UTF_8));
        DurableFile.write(f, "second\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("second\n", Files.readString(f));
        assertEquals(List.of("state"), names(f.getParent()));
    }

    @Test
    void aTemporaryLeftByACrashIsOverwrittenNotAppendedTo() throws Exception {
        Path f = dir.resolve("state");
        Files.writeString(dir.resolve("state.tmp"), "torn write from before the crash, longer than the new");
        byte[] content = {1, 2, 3};
        DurableFile.write(f, content);
        assertArrayEquals(content, Files.readAllBytes(f));
        assertEquals(List.of("state"), names(dir));
    }

    @Test
    void aFolderThatCannotBeWrittenIsAnIOExceptionAndTheOldContentStays() throws Exception {
        Path f = dir.resolve("state");
        DurableFile.write(f, "old".getBytes(StandardCharsets.UTF_8));
        // A regular file where the temporary's folder should be: the write cannot even start.
        assertThrows(IOException.class, () -> DurableFile.write(dir.resolve("state/inner"), new byte[] {1}));
        assertEquals("old", Files.readString(f));
    }
}
