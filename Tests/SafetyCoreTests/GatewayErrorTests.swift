import SafetyCore
import Testing

struct GatewayErrorTests {
    struct LocalError: GatewayErrorConvertible {
        var gatewayError: GatewayError { .timeout }
    }

    struct Unknown: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    enum BackendError: GatewayErrorConvertible {
        case http(status: Int)
        var gatewayError: GatewayError {
            switch self {
            case .http(429): .rateLimited(retryAfter: .seconds(2))
            case .http: .backendFailed(underlying: self)
            }
        }
    }

    static let everyKind: [GatewayError.Kind] = [
        .aiUnavailable, .timeout, .rateLimited(retryAfter: nil), .backendFailed,
        .invalidInput(reason: "empty"), .configuration(file: "catalogs/en.yaml", line: 3, reason: "bad"),
        .unsafeOutput, .unchecked(.searchLimit), .internal,
    ]

    @Test func codesAreStableAndDistinct() {
        let codes = Self.everyKind.map(\.code)
        #expect(codes == GatewayError.Kind.allCodes)
        #expect(Set(codes).count == codes.count)
    }

    @Test func categoriesDecideRetry() {
        #expect(GatewayError.timeout.category == .transient)
        #expect(GatewayError.aiUnavailable.category == .offline)
        #expect(GatewayError.rateLimited(retryAfter: nil).category == .rateLimited)
        #expect(GatewayError.backendFailed(underlying: nil).category == .serverError)
        #expect(GatewayError.unsafeOutput.category == .serverError)
        #expect(GatewayError.invalidInput(reason: "x").category == .validation)
        #expect(GatewayError.configuration(file: "f", line: nil, reason: "r").category == .configuration)
        #expect(GatewayError.internal.category == .internal)
        #expect(ErrorCategory.allCases.filter(\.isRetryable) == [.transient, .rateLimited, .offline, .serverError])
        #expect(GatewayError.timeout.isRetryable)
        #expect(!GatewayError.invalidInput(reason: "x").isRetryable)
    }

    @Test func everyKindHasASymbolAndSuggestsDismissLast() {
        for kind in Self.everyKind {
            let error = GatewayError(kind)
            #expect(error.kind.symbol.unicodeScalars.count == 1)
            #expect(error.suggestedActions.last == .dismiss)
            #expect(error.suggestedActions.contains(.retry) == error.isRetryable)
        }
        #expect(
            GatewayError.configuration(file: "rules/en.yaml", line: 2, reason: "x").suggestedActions.first
                == .openSettings(path: "rules/en.yaml"))
        #expect(GatewayError.internal.suggestedActions.first == .contactSupport)
    }

    @Test func recoveryActionNamesAreTheContractsNames() {
        #expect(RecoveryAction.retry.name == "retry")
        #expect(RecoveryAction.dismiss.name == "dismiss")
        #expect(RecoveryAction.contactSupport.name == "contactSupport")
        #expect(RecoveryAction.openSettings(path: "/x").name == "openSettings")
    }

    @Test func convertsAnything() {
        #expect(GatewayError(from: GatewayError.timeout) == .timeout)
        let local = GatewayError(from: LocalError())
        #expect(local == .timeout)
        #expect(local.underlying is LocalError)

        let limited = GatewayError(from: BackendError.http(status: 429))
        #expect(limited.retryAfter == .seconds(2))
        #expect(limited.underlying is BackendError)

        let unknown = GatewayError(from: Unknown())
        #expect(unknown == .internal)
        #expect(unknown.underlying is Unknown)
        #expect(unknown.underlyingDescription?.hasSuffix("Unknown: disk on fire") == true)
        #expect(GatewayError.timeout.underlyingDescription == nil)
    }

    @Test func catchPatternsMatchConvertedErrors() {
        func kindName(_ thrown: any Error) -> String {
            do {
                throw thrown
            } catch GatewayError.timeout {
                return "timeout"
            } catch GatewayError.internal {
                return "internal"
            } catch {
                return "other"
            }
        }
        #expect(kindName(LocalError()) == "timeout")
        #expect(kindName(Unknown()) == "internal")
        #expect(kindName(GatewayError.aiUnavailable) == "other")
    }

    @Test func equalityIgnoresAttachmentsAndContext() {
        let plain = GatewayError.timeout
        let decorated = GatewayError.timeout.adding(.retry).in(.afterEmergency)
        #expect(plain == decorated)
        #expect(decorated.context == .afterEmergency)
        #expect(decorated.offeredActions == [.retry])
        #expect(GatewayError.invalidInput(reason: "a") != .invalidInput(reason: "b"))
    }

    @Test func exitStatusFollowsTheContract() {
        #expect(GatewayError.configuration(file: "f", line: 1, reason: "r").exitStatus == 78)
        #expect(GatewayError.invalidInput(reason: "r").exitStatus == 65)
        #expect(GatewayError.internal.exitStatus == 70)
    }

    @Test func descriptionNamesFileAndLine() {
        #expect(
            GatewayError.configuration(file: "catalogs/tr.yaml", line: 12, reason: "tab").description
                == "configuration: catalogs/tr.yaml:12: tab")
        #expect(GatewayError.timeout.description == "timeout")
    }
}

struct GatewayErrorSwitchTests {
    @Test func switchOverAGatewayErrorValue() {
        func name(_ error: GatewayError) -> String {
            switch error {
            case .timeout: "timeout"
            case .aiUnavailable: "aiUnavailable"
            default: "other"
            }
        }
        #expect(name(.timeout.adding(.retry)) == "timeout")
        #expect(name(.aiUnavailable) == "aiUnavailable")
        #expect(name(.internal) == "other")
    }
}
