import Testing

@testable import TextNormalization

/// Inputs on which squashing once looped forever or changed on a second pass (found by the
/// fuzzer, `Fuzz/regressions/`): it must end, and normalising its own output must change nothing.
@Suite struct SquashTerminationTests {
    @Test(arguments: ["ь.k.i.", "please\u{FFFD}ь.k.i.", "é k i", "ü-a-b", "ь k i l l", "x\u{15}\u{F95}y"])
    func squashingEndsAndIsIdempotent(text: String) {
        let once = NormalizedText(text).view(.squashed).text
        let twice = NormalizedText(once).view(.squashed).text
        #expect(once == twice)
    }
}
