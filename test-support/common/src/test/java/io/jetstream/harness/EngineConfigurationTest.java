package io.jetstream.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineConfigurationTest {
    @Test
    void wholeNumbersBecomeLongsBooleansBooleansTheRestStrings() {
        Map<String, String> text = new LinkedHashMap<>();
        text.put("a", "-12");
        text.put("b", "true");
        text.put("c", "1.5");
        text.put("d", "100mbit");
        assertEquals(Map.of("a", -12L, "b", true, "c", "1.5", "d", "100mbit"), EngineConfiguration.typed(text));
    }
}
