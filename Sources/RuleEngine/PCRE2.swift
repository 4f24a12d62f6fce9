// The only file that talks to PCRE2. Nothing here is public: the rest of the module, and every
// client, sees `CompiledPattern`, `MatchResources` and `SearchOutcome`, never a C type.
import CPCRE2
import Synchronization

/// Why a pattern does not compile: PCRE2's message and the byte offset in the pattern.
struct PatternError: Error, Sendable, Hashable {
    var message: String
    var offset: Int
    /// PCRE2's compile error code (positive, unlike match error codes).
    var code: Int32 = 0
}

/// One PCRE2 pattern, compiled at load or at first use, each of its two codes (UTF and bytes)
/// JIT-compiled before its first search; frees its code in `deinit`.
///
/// `@unchecked Sendable`: `code` is either compiled in `init` (`init(_:)`, which checks the pattern
/// and throws), before the object is shared, or left `nil` (`init(deferred:)`) and compiled by the
/// first `compile()`. Nobody matches with it until `compile()` has, under the `preparing` mutex,
/// compiled it when deferred (or recorded why it does not compile in `compileError`) and built the
/// bytes twin, and published that with a release store to `compiled`; and until `jit(_:)` has, under
/// the same mutex, JIT-compiled the code the search uses and published that with a release store
/// to `utfJIT` or `bytesJIT`. Every reader does the acquiring load of `compiled` (inside
/// `compile()`) before it reads `code`, `compileError` or `bytesCode`, and of the code's JIT flag
/// (inside `jit(_:)`) before it matches with that code or reads `jitCompiled`; so those plain stored
/// properties, and the JIT data PCRE2 attaches to a code, are written once, before the release,
/// and only used after the acquire (no data race, and TSan sees the atomic pairs and the mutex).
/// Afterwards the `pcre2_code`s are never modified, and PCRE2 documents compiled code as safe to
/// use from many threads at once as long as each thread has its own match data, which
/// `MatchResources` provides. The guarded twin is compiled the same way, under its own mutex,
/// before it is first handed out.
///
/// JIT compilation is deferred because it is most of the cost of loading a rule set (about three
/// quarters of compiling, measured with callgrind), and most rules are never searched for a given
/// prompt: the literal prefilter rules them out. Each code is JIT-compiled on its own because a
/// search uses one of them (pure-ASCII views the bytes twin, others the UTF code): a first prompt
/// in ASCII does not pay for JIT-compiling the UTF code of every rule it searches (about half of the
/// time to classify it). Either way a code is JIT-compiled before it is first matched, so every
/// search runs where it ran before (the JIT, or the interpreter when the JIT refuses the pattern).
/// The bundled rules defer `pcre2_compile` too (they are checked by the tests and by `rules test` /
/// `rules lint`, which compile at load): a bundled pattern that does not compile at first use makes
/// every search of it a `.failure`, which the classifier reports (fail closed), never a crash or a
/// silent pass.
final class CompiledPattern: @unchecked Sendable {
    /// Compile options: UTF-8 with Unicode properties for `\w`, `\b`, `\d` and case, caseless;
    /// `\C` is refused (it could split a character).
    /// `PCRE2_USE_OFFSET_LIMIT` lets the matcher search only windows of a view (`RuleMatcher`).
    static let compileOptions: UInt32 =
        UInt32(PCRE2_UTF) | UInt32(PCRE2_UCP) | UInt32(PCRE2_CASELESS) | UInt32(PCRE2_NEVER_BACKSLASH_C) | UInt32(PCRE2_USE_OFFSET_LIMIT)

    let source: String
    /// The compiled pattern; `nil` until `compile()` for a deferred pattern, and for good when it
    /// does not compile (then `compileError` says why).
    fileprivate var code: OpaquePointer?
    /// Why a deferred pattern did not compile at its first use. Set by `compile()`.
    private var compileError: PatternError?
    /// The same pattern with a callout before every item, for long subjects: the callout checks a
    /// deadline, so a search on a long subject can be stopped in the middle (see `shim.h`).
    /// Compiled on first use (long subjects are rare, and loading should stay quick).
    private let guardedCode = Mutex<GuardedCode>(.notCompiled)
    /// 1 once `compile()` has run: `code` (or `compileError`), `bytesCode` and
    /// `storedMinimumLength` are then set for good.
    private let compiled = Atomic<Int>(0)
    /// 1 once the UTF code has been offered to the JIT (`jitCompiled` then says whether it took it).
    private let utfJIT = Atomic<Int>(0)
    /// 1 once the bytes twin has been offered to the JIT.
    private let bytesJIT = Atomic<Int>(0)
    private let preparing = Mutex<Void>(())
    /// The same pattern compiled for bytes (no UTF, no UCP), for subjects that are pure ASCII: there
    /// it matches exactly what the UTF code matches (every character is one byte, `\w`, `\b`, `\s`
    /// and case agree on ASCII, and a non-ASCII pattern character can match no ASCII byte, with or
    /// without UTF), and PCRE2 runs it about 2.6 times as fast. `nil` when it does not compile
    /// (`\x{100}` and above). Set by `compile()`.
    fileprivate var bytesCode: OpaquePointer?
    private var jitCompiled = false
    /// Whether the JIT took the bytes twin. Set by `jit(.bytes)`, read after it.
    private var bytesJITCompiled = false
    private var storedMinimumLength = 0

    /// Compiles `pattern` now, so a pattern PCRE2 rejects is reported at load.
    init(_ pattern: String) throws(PatternError) {
        source = pattern
        switch Self.compile(pattern) {
        case .success(let compiled): code = compiled
        case .failure(let error): throw error
        }
    }

    /// Keeps `pattern` to compile at its first use (`compile()`): for patterns checked elsewhere
    /// (the bundled rules), where compiling every pattern at load would be most of the start-up.
    init(deferred pattern: String) {
        source = pattern
        code = nil
    }

    private static func compile(_ pattern: String) -> Result<OpaquePointer, PatternError> {
        var errorCode: Int32 = 0
        var errorOffset = 0
        let bytes = Array(pattern.utf8)
        let compiled = bytes.withUnsafeBufferPointer { buffer in
            pcre2_compile_8(buffer.baseAddress, buffer.count, Self.compileOptions, &errorCode, &errorOffset, nil)
        }
        guard let compiled else { return .failure(PatternError(message: Self.message(for: errorCode), offset: errorOffset, code: errorCode)) }
        return .success(compiled)
    }

    /// PCRE2's lower bound on the length of any match, in characters (0 for a pattern that does not
    /// compile).
    var minimumLength: Int {
        compile()
        return storedMinimumLength
    }

    /// Why the pattern does not compile, or `nil` when it does; compiles a deferred pattern now.
    var patternError: PatternError? {
        compile()
        return compileError
    }

    /// Compiles and JIT-compiles everything now (for a warm start: `CompiledRuleSet.prepareAll`).
    func prepare() {
        jit(.utf)
        jit(.bytes)
    }

    /// The two codes of a pattern.
    enum Code {
        /// UTF-8 with Unicode properties: any view.
        case utf
        /// The bytes twin: pure-ASCII views.
        case bytes
    }

    /// Compiles a deferred pattern and builds the bytes twin, once; cheap after the first call.
    /// Never fails: a pattern that does not compile keeps `code` nil, and every search of it
    /// reports a failure.
    @inline(__always)
    func compile() {
        if compiled.load(ordering: .acquiring) == 1 { return }
        preparing.withLock { _ in
            guard compiled.load(ordering: .acquiring) == 0 else { return }
            if code == nil {
                switch Self.compile(source) {
                case .success(let compiled): code = compiled
                case .failure(let error): compileError = error
                }
            }
            if let code {
                var length: UInt32 = 0
                _ = pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_MINLENGTH), &length)
                storedMinimumLength = Int(length)
                var errorCode: Int32 = 0
                var errorOffset = 0
                let bytes = Array(source.utf8)
                bytesCode = bytes.withUnsafeBufferPointer { buffer in
                    pcre2_compile_8(buffer.baseAddress, buffer.count, Self.bytesOptions, &errorCode, &errorOffset, nil)
                }
            }
            compiled.store(1, ordering: .releasing)
        }
    }

    /// Compiles the pattern (`compile()`) and JIT-compiles `which` of its codes, once; cheap after
    /// the first call. Must precede every match with that code.
    @inline(__always)
    func jit(_ which: Code) {
        switch which {
        case .utf: if utfJIT.load(ordering: .acquiring) == 1 { return }
        case .bytes: if bytesJIT.load(ordering: .acquiring) == 1 { return }
        }
        compile()
        preparing.withLock { _ in
            switch which {
            case .utf:
                guard utfJIT.load(ordering: .acquiring) == 0 else { return }
                if let code { jitCompiled = pcre2_jit_compile_8(code, UInt32(PCRE2_JIT_COMPLETE)) == 0 }
                utfJIT.store(1, ordering: .releasing)
            case .bytes:
                guard bytesJIT.load(ordering: .acquiring) == 0 else { return }
                if let bytesCode { bytesJITCompiled = pcre2_jit_compile_8(bytesCode, UInt32(PCRE2_JIT_COMPLETE)) == 0 }
                bytesJIT.store(1, ordering: .releasing)
            }
        }
    }

    /// Which codes have been offered to the JIT so far (for the tests).
    var jitDone: (utf: Bool, bytes: Bool) {
        (utfJIT.load(ordering: .acquiring) == 1, bytesJIT.load(ordering: .acquiring) == 1)
    }

    /// False when the JIT is unavailable or refused the pattern: matching then uses the interpreter,
    /// under the depth and heap limits too.
    var isJITCompiled: Bool {
        jit(.utf)
        return jitCompiled
    }

    /// Whether `which` of the codes runs on the JIT: offers it to the JIT first (`jit(_:)`).
    @inline(__always)
    fileprivate func usesJIT(_ which: Code) -> Bool {
        jit(which)
        switch which {
        case .utf: return jitCompiled
        case .bytes: return bytesJITCompiled
        }
    }

    /// The guarded twin, compiled on first use; `nil` when it does not compile.
    fileprivate var guarded: OpaquePointer? {
        guardedCode.withLock { state in
            switch state {
            case .compiled(let code): return code
            case .failed: return nil
            case .notCompiled:
                var errorCode: Int32 = 0
                var errorOffset = 0
                let bytes = Array(source.utf8)
                let code = bytes.withUnsafeBufferPointer { buffer in
                    pcre2_compile_8(
                        buffer.baseAddress, buffer.count, Self.compileOptions | UInt32(PCRE2_AUTO_CALLOUT), &errorCode,
                        &errorOffset, nil)
                }
                guard let code else {
                    state = .failed
                    return nil
                }
                _ = pcre2_jit_compile_8(code, UInt32(PCRE2_JIT_COMPLETE))
                state = .compiled(code)
                return code
            }
        }
    }

    /// Options of the bytes twin.
    static let bytesOptions: UInt32 = UInt32(PCRE2_CASELESS) | UInt32(PCRE2_USE_OFFSET_LIMIT)

    deinit {
        // No other reference exists in deinit, so reading code and bytesCode needs no ordering.
        if let code { pcre2_code_free_8(code) }
        guardedCode.withLock { state in
            if case .compiled(let code) = state { pcre2_code_free_8(code) }
        }
        if let bytesCode { pcre2_code_free_8(bytesCode) }
    }

    /// PCRE2's text for an error code.
    static func message(for code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(code, $0.baseAddress, $0.count) }
        guard count > 0 else { return "PCRE2 error \(code)" }
        return String(decoding: buffer[0..<Int(count)], as: UTF8.self)
    }
}

/// The lazily compiled guarded twin of a pattern.
enum GuardedCode {
    case notCompiled
    case compiled(OpaquePointer)
    case failed
}

/// The outcome of one search.
enum SearchOutcome: Equatable {
    case match(Range<Int>)
    case noMatch
    case limit(LimitHit.Reason)
    case failure(code: Int32, message: String)
}

/// The per-thread side of matching: one match data block (room for the whole-match offsets only),
/// one match context carrying the limits and the deadline callout, and one JIT stack. Made once per
/// `RuleMatcher`, reused for every search, freed in `deinit`, so nothing is allocated per match.
final class MatchResources {
    private let matchData: OpaquePointer
    private let context: OpaquePointer
    private let jitStack: OpaquePointer?
    private let deadline: UnsafeMutablePointer<sg_pcre2_deadline>

    init(limits: MatchLimits) {
        guard let matchData = pcre2_match_data_create_8(1, nil), let context = pcre2_match_context_create_8(nil) else {
            fatalError("PCRE2 could not allocate match data (out of memory)")
        }
        self.matchData = matchData
        self.context = context
        _ = pcre2_set_match_limit_8(context, limits.matchLimit)
        _ = pcre2_set_depth_limit_8(context, limits.depthLimit)
        _ = pcre2_set_heap_limit_8(context, limits.heapLimitKiB)
        // The default JIT stack is 32 KiB of machine stack; a private one that may grow to 1 MiB
        // lets deeply nested (but legitimate) patterns finish, and still fails cleanly past that.
        jitStack = pcre2_jit_stack_create_8(32 * 1024, limits.jitStackBytes, nil)
        if let jitStack { pcre2_jit_stack_assign_8(context, nil, UnsafeMutableRawPointer(jitStack)) }
        deadline = .allocate(capacity: 1)
        deadline.initialize(to: sg_pcre2_deadline(deadline_ns: 0, calls: 0, expired: 0))
        _ = sg_pcre2_install_deadline(context, deadline)
    }

    deinit {
        deadline.deallocate()
        if let jitStack { pcre2_jit_stack_free_8(jitStack) }
        pcre2_match_context_free_8(context)
        pcre2_match_data_free_8(matchData)
    }

    /// Searches `subject` for `pattern`, for a match starting at `start` or later. `subject` must be
    /// valid UTF-8 (views always are), so the UTF check is skipped. With `deadline` (monotonic
    /// nanoseconds), the search runs on the pattern's guarded twin and stops with `.timeBudget`
    /// soon after the deadline. With `ascii` (the caller checked that every byte is below 0x80), it
    /// runs on the bytes twin.
    func search(
        _ pattern: CompiledPattern, in subject: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int? = nil,
        deadline until: UInt64? = nil, ascii: Bool = false
    ) -> SearchOutcome {
        pattern.compile()
        guard var code = pattern.code else {
            // A deferred pattern that PCRE2 rejected at its first use: a failure of the rule, which
            // the classifier's fail-closed policy reports; never a crash, never a silent no-match.
            let error = pattern.patternError
            return .failure(
                code: error?.code ?? 0, message: "pattern does not compile: \(error?.message ?? "unknown error") at offset \(error?.offset ?? 0)")
        }
        var onJIT = false
        if let until, let guarded = pattern.guarded {
            code = guarded
            deadline.pointee = sg_pcre2_deadline(deadline_ns: max(until, 1), calls: 0, expired: 0)
        } else if ascii, let bytesCode = pattern.bytesCode {
            onJIT = pattern.usesJIT(.bytes)
            code = bytesCode
        } else {
            onJIT = pattern.usesJIT(.utf)
        }
        // Matches must start at or before the limit (the context is shared by every search).
        sg_pcre2_set_offset_limit(context, limit ?? -1)
        let rc: Int32
        if onJIT, let base = subject.baseAddress, start <= subject.count {
            // JIT code called directly: `pcre2_match` would check the arguments (they hold: the
            // code takes the offset limit, the subject is valid UTF-8 and the start inside it) and
            // then make this same call; the checks were some 115 of the 300 instructions a
            // windowed search spends outside the pattern's code.
            rc = pcre2_jit_match_8(code, base, subject.count, start, 0, matchData, context)
        } else {
            // An empty buffer may have a nil base address, which PCRE2 accepts only with length 0.
            rc = pcre2_match_8(code, subject.baseAddress, subject.count, start, UInt32(PCRE2_NO_UTF_CHECK), matchData, context)
        }
        if rc >= 0 {
            let ovector = pcre2_get_ovector_pointer_8(matchData)!
            let lower = ovector[0]
            let upper = ovector[1]
            // \K can put the start after the end; report the covering span.
            return .match(min(lower, upper)..<max(lower, upper))
        }
        switch rc {
        case PCRE2_ERROR_NOMATCH: return .noMatch
        case PCRE2_ERROR_CALLOUT where deadline.pointee.expired != 0: return .limit(.timeBudget)
        case PCRE2_ERROR_MATCHLIMIT: return .limit(.matchLimit)
        case PCRE2_ERROR_DEPTHLIMIT: return .limit(.depthLimit)
        case PCRE2_ERROR_HEAPLIMIT: return .limit(.heapLimit)
        case PCRE2_ERROR_JIT_STACKLIMIT: return .limit(.jitStackLimit)
        default: return .failure(code: rc, message: CompiledPattern.message(for: rc))
        }
    }
}

/// Facts about the PCRE2 library in use.
enum PCRE2Info {
    /// Monotonic nanoseconds (the clock the deadline callout reads).
    static func now() -> UInt64 { sg_monotonic_ns() }

    /// The library version, e.g. `10.42 2022-12-11`.
    static var version: String {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pcre2_config_8(UInt32(PCRE2_CONFIG_VERSION), $0.baseAddress) }
        guard count > 1 else { return "unknown" }
        return String(decoding: buffer[0..<Int(count - 1)], as: UTF8.self)
    }

    /// Whether the library was built with the JIT compiler.
    static var hasJIT: Bool {
        var value: UInt32 = 0
        _ = pcre2_config_8(UInt32(PCRE2_CONFIG_JIT), &value)
        return value == 1
    }
}
