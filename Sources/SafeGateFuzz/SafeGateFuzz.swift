#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SafeGateCLI

/// `SafeGateFuzz TARGET [ARGS...]`: one fuzz target per `FuzzHarness.Target`.
///
/// Built with `-sanitize=fuzzer` and `-DFUZZING` (`Scripts/fuzz`), ARGS go to libFuzzer.
/// Built normally (as `swift build` does), it replays the files and directories in ARGS and
/// prints every broken invariant; exit 1 when one breaks:
/// ```
/// swift run SafeGateFuzz classify Fuzz/regressions/classify
/// ```
@main
enum SafeGateFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzHarness.Target(rawValue: arguments[1]) else {
            let names = FuzzHarness.Target.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: SafeGateFuzz \(names) [FILE|DIR ... | libFuzzer flags]\n".utf8))
            exit(64)
        }
        #if FUZZING
        runLibFuzzer(target: target, arguments: [arguments[0]] + arguments.dropFirst(2))
        #else
        replay(target: target, paths: Array(arguments.dropFirst(2)))
        #endif
    }

    /// Runs every file named (directories: every file in them, sorted) and reports violations.
    static func replay(target: FuzzHarness.Target, paths: [String]) {
        let harness = FuzzHarness(target: target)
        var failed = 0
        var ran = 0
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path): no such file")
                failed += 1
                continue
            }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                ran += 1
                let problems = harness.run(Array(data))
                for problem in problems { print("\(file): \(problem)") }
                if !problems.isEmpty { failed += 1 }
            }
        }
        print("\(target.rawValue): \(ran) inputs, \(failed) failed")
        exit(failed == 0 ? 0 : 1)
    }
}

#if FUZZING
/// libFuzzer's entry when the program keeps its own `main` (SwiftPM renames an executable's
/// `main`, so libFuzzer's own cannot be used).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The harness of this run. libFuzzer calls back on one thread, one input at a time, and a C
/// callback cannot capture context, hence a global.
nonisolated(unsafe) var harness: FuzzHarness?

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let harness else { return 0 }
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let problems = harness.run(bytes)
    if !problems.isEmpty {
        for problem in problems { FileHandle.standardError.write(Data("invariant broken: \(problem)\n".utf8)) }
        abort()
    }
    return 0
}

func runLibFuzzer(target: FuzzHarness.Target, arguments: [String]) -> Never {
    harness = FuzzHarness(target: target)
    // Warm up (the bundled rules load once) so the first input is not timed with it.
    _ = harness?.run([])
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    var argc = CInt(arguments.count)
    let status = argv.withUnsafeMutableBufferPointer { buffer in
        var base: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = buffer.baseAddress
        return LLVMFuzzerRunDriver(&argc, &base, fuzzOneInput)
    }
    exit(status)
}
#endif
