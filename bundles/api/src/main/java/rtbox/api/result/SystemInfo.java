package rtbox.api.result;

import java.util.Map;

/**
 * The machine a result was taken on, as an RT engineer needs it to read the
 * numbers: kernel and its preemption model, clock source, RT throttling, timer
 * slack, CPU, JVM and its flags. Keys are stable; values are as the system said.
 */
public record SystemInfo(Map<String, String> values) {
    public String get(String key) {
        return values.getOrDefault(key, "");
    }
}
