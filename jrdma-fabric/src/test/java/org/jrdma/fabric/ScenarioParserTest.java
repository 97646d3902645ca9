package org.jrdma.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.jrdma.fabric.scenario.Scenario;
import org.jrdma.fabric.scenario.ScenarioException;
import org.jrdma.fabric.scenario.ScenarioParser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Scenario files: generated topologies, and errors that name the line and the field. */
class ScenarioParserTest {
    private static final String BASE = "topology single-switch hosts=2 rate=25Gbps\n";

    @Test
    void fatTreeK4HasSixteenHostsTwentySwitchesFortyEightLinks() throws ScenarioException {
        Scenario s = ScenarioParser.parse("t", "topology fat-tree k=4 rate=100Gbps\nflows permutation size=1MB\n");
        assertEquals(16, s.nodes().stream().filter(n -> !n.isSwitch()).count());
        assertEquals(20, s.nodes().stream().filter(n -> n.isSwitch()).count());
        assertEquals(48, s.links().size());
        assertEquals(16, s.flows().size());
        assertEquals("h8", s.flows().get(0).dst());
    }

    @Test
    void leafSpineAndRing() throws ScenarioException {
        Scenario ls = ScenarioParser.parse("t", "topology leaf-spine leaves=4 spines=2 hosts-per-leaf=8 rate=25G "
                + "fabric-rate=100G delay=500ns\n");
        assertEquals(32 + 8, ls.links().size());
        assertEquals(100_000_000_000L, ls.links().get(8).rateBps());
        assertEquals(500_000, ls.links().get(0).delayPs());
        Scenario ring = ScenarioParser.parse("t", "topology ring switches=3 rate=40G\n");
        assertEquals(6, ring.links().size());
        assertEquals(0, ring.routes().size());
        // clockwise: each switch routes the two hosts not its own to its successor
        Scenario cw = ScenarioParser.parse("t", "topology ring switches=3 rate=40G routing=clockwise\n");
        assertEquals(6, cw.routes().size());
        assertEquals(new org.jrdma.fabric.scenario.RouteSpec("s2", "h0", "s0", 1), cw.routes().get(4));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "link h0 s0 rate=-5Gbps|2|rate|a rate must be positive",
        "link h0 s0 rat=5Gbps|2|rat|unknown field of 'link'",
        "link h0 s9 rate=5Gbps|2|node|unknown node 's9'",
        "link h0 s0 rate=fast|2|rate|is not a rate",
        "link h0 s0 rate=5G loss=1|2|loss|out of range",
        "buffer size=1000B|2|size|smaller than one MTU",
        "ecn kmin=200KB kmax=5KB pmax=0.01|2|kmax|must be above kmin",
        "ecn kmin=5KB kmax=200KB|2|pmax|missing",
        "flow f src=h0 dst=s0 size=1MB|2|dst|is not a host",
        "flow f src=h0 dst=h1 size=0|2|size|must be positive",
        "flow f src=h0 dst=h1 size=1MB priority=0|2|priority|out of range 1..7",
        "dcqcn dctcp|2|set|unknown DCQCN parameter set",
        "frobnicate|2||unknown directive 'frobnicate'",
        "duration -1ms|2|time|must not be negative",
        "route s0 to=h1 via=s9|2|via|is not a neighbour",
        "route h0 to=h1 via=s0|2|switch|is not a switch",
        "flow f src=h0 dst=h1 size=1MB start=2ms stop=1ms|2|stop|must be after start",
    })
    void errorsNameTheLineAndField(String line, int lineNo, String field, String detail) {
        ScenarioException e = assertThrows(ScenarioException.class,
                () -> ScenarioParser.parse("bad.fabric", BASE + line + "\n"));
        assertEquals(lineNo, e.line(), e.getMessage());
        assertEquals(field == null || field.isEmpty() ? null : field, e.field(), e.getMessage());
        assertEquals(true, e.getMessage().startsWith("bad.fabric:" + lineNo + ": "), e.getMessage());
        assertEquals(true, e.getMessage().contains(detail), e.getMessage());
    }

    @Test
    void aHostWithTwoLinksIsRefusedAtItsLine() {
        ScenarioException e = assertThrows(ScenarioException.class, () -> ScenarioParser.parse("bad.fabric",
                "switch s0 s1\n\nhost h0\nlink h0 s0 rate=1G\nlink h0 s1 rate=1G\n"));
        assertEquals(3, e.line());
        assertEquals(true, e.getMessage().contains("host 'h0' has 2 links"), e.getMessage());
    }
}
