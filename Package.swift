// swift-tools-version: 6.2
import PackageDescription

// Dependencies point one way:
// safegate -> Assistant -> {SafetyClassifier, Refusals, Resilience} -> {RuleEngine, TextNormalization} -> SafetyCore.
// C code is reached only through CICUShim (seen by TextNormalization alone), CPCRE2 (seen by
// RuleEngine alone) and CLibEdit (line editing, seen by the command line alone).
let package = Package(
    name: "SafetyGateway",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "safegate", targets: ["safegate"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    ],
    targets: [
        // MARK: C bridges
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]
        ),
        .systemLibrary(
            name: "CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(
            name: "CICUShim",
            linkerSettings: [
                .linkedLibrary("icui18n"),
                .linkedLibrary("icuuc"),
                .linkedLibrary("icudata"),
            ]
        ),

        // MARK: Library, by pipeline stage
        .target(name: "SafetyCore"),
        .target(
            name: "SafeGateResources",
            plugins: [.plugin(name: "EmbedResources")]
        ),
        .target(name: "TextNormalization", dependencies: ["CICUShim", "SafetyCore"]),
        .target(
            name: "RuleEngine",
            dependencies: ["CPCRE2", "TextNormalization", "SafetyCore", "SafeGateResources", "Yams"]
        ),
        .target(
            name: "SafetyClassifier",
            dependencies: ["RuleEngine", "TextNormalization", "SafetyCore", "SafeGateResources", "Yams"]
        ),
        .target(name: "Refusals", dependencies: ["SafetyCore", "SafeGateResources", "Yams"]),
        .target(name: "Resilience", dependencies: ["SafetyCore"]),
        .target(
            name: "Assistant",
            dependencies: ["SafetyClassifier", "Refusals", "Resilience", "SafetyCore"]
        ),
        // The commands live in a library so tests run them in-process; the executable is one line.
        .target(
            name: "SafeGateCLI",
            dependencies: [
                "Assistant", "SafetyClassifier", "Refusals", "Resilience", "RuleEngine",
                "TextNormalization", "SafetyCore", "CLibEdit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "safegate", dependencies: ["SafeGateCLI"]),
        // Fuzz targets over FuzzHarness: libFuzzer with -DFUZZING (Scripts/fuzz), else a replay tool.
        .executableTarget(name: "SafeGateFuzz", dependencies: ["SafeGateCLI"]),

        // MARK: Build tooling: Resources/ is compiled into the binary as string literals.
        .executableTarget(name: "EmbedResourcesTool"),
        .plugin(
            name: "EmbedResources",
            capability: .buildTool(),
            dependencies: ["EmbedResourcesTool"]
        ),

        // MARK: Tests, one target per module plus the command line.
        .testTarget(name: "SafetyCoreTests", dependencies: ["SafetyCore"]),
        .testTarget(name: "TextNormalizationTests", dependencies: ["TextNormalization", "SafetyCore"]),
        .testTarget(
            name: "RuleEngineTests", dependencies: ["RuleEngine", "TextNormalization", "Resilience", "SafeGateResources"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "SafetyClassifierTests",
            dependencies: ["SafetyClassifier", "RuleEngine", "SafetyCore", "TextNormalization"]
        ),
        .testTarget(name: "RefusalsTests", dependencies: ["Refusals", "SafetyCore"], exclude: ["Golden"]),
        .testTarget(
            name: "ResilienceTests",
            dependencies: ["Resilience", "SafetyCore", .product(name: "Clocks", package: "swift-clocks")]
        ),
        .testTarget(name: "AssistantTests", dependencies: ["Assistant"]),
        .testTarget(name: "SafeGateCLITests", dependencies: ["SafeGateCLI", "Resilience"]),
    ]
)

// Strict settings for every Swift target of ours, in one place.
for target in package.targets where target.type != .system && target.type != .plugin {
    guard target.name != "CICUShim" else {
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-Wall", "-Wextra", "-Werror"])]
        continue
    }
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .treatAllWarnings(as: .error),
    ]
}

// The hot path (normalising and matching every prompt) keeps its state in final classes and arrays;
// release builds there skip the run-time exclusivity checks, which callgrind showed at 13 % of
// the instructions per short prompt (swift_beginAccess). Debug builds, and so every test, keep them.
for target in package.targets where ["RuleEngine", "TextNormalization", "SafetyClassifier"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
    ]
}
