import Resilience
import SafetyCore
import Testing

struct RetryPolicyTests {
    let unavailable = FailureClassification(GatewayError.aiUnavailable)

    @Test func envelopeDoublesUpToTheCap() {
        let policy = RetryPolicy.default
        #expect((1...6).map { policy.envelope(forRetry: $0) } == [
            .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
        ])
    }

    @Test func fullJitterIsExactForASeed() {
        var random = SplitMix64(seed: 42)
        let policy = RetryPolicy.default
        let delays = (1...3).map { policy.backoff(forRetry: $0, previous: nil, using: &random) }
        #expect(delays == [.milliseconds(742), .milliseconds(319), .milliseconds(1114)])
    }

    @Test(arguments: RetryPolicy.Jitter.allCases)
    func delaysStayWithinTheirBounds(jitter: RetryPolicy.Jitter) {
        let policy = RetryPolicy(maxAttempts: 10, jitter: jitter)
        for seed in UInt64(0)..<200 {
            var random = SplitMix64(seed: seed)
            var previous: Duration?
            for retry in 1...8 {
                let delay = policy.backoff(forRetry: retry, previous: previous, using: &random)
                switch jitter {
                case .full:
                    #expect(delay >= .zero && delay <= policy.envelope(forRetry: retry))
                case .none:
                    #expect(delay == policy.envelope(forRetry: retry))
                case .decorrelated:
                    let upper = min(policy.maxDelay, max(policy.initialDelay, (previous ?? policy.initialDelay) * 3))
                    #expect(delay >= policy.initialDelay && delay <= upper)
                }
                previous = delay
            }
        }
    }

    @Test func nonRetryableCategoriesAreNotRetried() {
        var random = SplitMix64(seed: 1)
        for error in [GatewayError.invalidInput(reason: "empty"), .internal,
                      .configuration(file: "rules/en.yaml", line: 3, reason: "bad")] {
            let failure = FailureClassification(error)
            #expect(RetryPolicy.default.decision(after: failure, attempt: 1, previousDelay: nil, using: &random)
                == .giveUp(.notRetryable))
        }
    }

    @Test func attemptsAreCapped() {
        var random = SplitMix64(seed: 1)
        let policy = RetryPolicy(maxAttempts: 3)
        #expect(policy.maxRetries == 2)
        if case .retry = policy.decision(after: unavailable, attempt: 2, previousDelay: nil, using: &random) {
        } else {
            Issue.record("attempt 2 of 3 should retry")
        }
        #expect(policy.decision(after: unavailable, attempt: 3, previousDelay: nil, using: &random)
            == .giveUp(.attemptsExhausted))
    }

    @Test func retryAfterIsAMinimumAndHasALimit() {
        var random = SplitMix64(seed: 42)
        let policy = RetryPolicy.default
        let advised = FailureClassification(GatewayError.rateLimited(retryAfter: .seconds(2)))
        #expect(policy.decision(after: advised, attempt: 1, previousDelay: nil, using: &random)
            == .retry(after: .seconds(2)))

        let short = FailureClassification(GatewayError.rateLimited(retryAfter: .milliseconds(10)))
        var again = SplitMix64(seed: 42)
        #expect(policy.decision(after: short, attempt: 1, previousDelay: nil, using: &again)
            == .retry(after: .milliseconds(742)))  // the backoff is longer than the advice

        let tooLong = FailureClassification(GatewayError.rateLimited(retryAfter: .seconds(60)))
        #expect(policy.decision(after: tooLong, attempt: 1, previousDelay: nil, using: &random)
            == .giveUp(.retryAfterTooLong))
    }
}
