import Testing

@testable import SafeGateCLI

/// Commands that load the bundled rules start decoding them before the command line is parsed
/// (`SafeGateMain.loadsBundledRules`); others must not spend a core on it.
@Suite struct StartupWarmUpTests {
    @Test(arguments: [
        (["safegate", "classify", "one.txt"], true),
        (["safegate", "classify", "--jobs", "2", "--quiet", "-"], true),
        (["safegate", "eval", "Corpus/en.jsonl"], true),
        (["safegate", "explain", "kill him"], true),
        (["safegate", "respond", "hello"], true),
        (["safegate", "chat"], true),
        (["safegate", "rules", "test"], true),
        (["safegate", "classify", "--rules", "Resources/rules", "one.txt"], false),
        (["safegate", "rules", "lint", "--rules=mine"], false),
        (["safegate", "classify", "--help"], false),
        (["safegate", "eval", "-h"], false),
        (["safegate", "dev", "generate-literal-cache"], false),
        (["safegate", "--bogus"], false),
        (["safegate"], false),
    ])
    func theBundledRulesAreDecodedEarlyOnlyForCommandsThatLoadThem(_ arguments: [String], _ expected: Bool) {
        #expect(SafeGateMain.loadsBundledRules(arguments) == expected)
    }
}
