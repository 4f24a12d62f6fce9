import Resilience
import SafetyCore
import Testing

struct MonitoringTests {
    let timeout = FailureClassification(GatewayError.timeout)

    /// Feeds `successes` then `failures` backend calls; returns the alarms raised.
    func feed(_ metrics: ResilienceMetrics, successes: Int, failures: Int) -> [HighErrorRate] {
        var alarms: [HighErrorRate] = []
        for _ in 0..<successes { if let alarm = metrics.attemptSucceeded() { alarms.append(alarm) } }
        for _ in 0..<failures { if let alarm = metrics.attemptFailed(timeout) { alarms.append(alarm) } }
        return alarms
    }

    @Test(arguments: [(0, false), (4, false), (5, false), (6, true), (30, true)])
    func firesAboveFivePercentOfTheWindowAndNotAtOrBelow(failures: Int, fires: Bool) {
        let metrics = ResilienceMetrics(policy: MonitoringPolicy(windowSize: 100, minimumSamples: 100))
        let alarms = feed(metrics, successes: 100 - failures, failures: failures)
        #expect(alarms.count == (fires ? 1 : 0))  // once per crossing, however far past it goes
        #expect(alarms.first?.failures == (fires ? failures : nil))  // raised when the window filled
        #expect(metrics.snapshot().windowFailures == failures)
        #expect(metrics.snapshot().windowSamples == 100)
    }

    @Test func theWindowSlidesAndTheAlarmRearms() {
        let metrics = ResilienceMetrics(policy: MonitoringPolicy(windowSize: 100, minimumSamples: 20))
        #expect(feed(metrics, successes: 94, failures: 6).count == 1)  // 6 %
        // 100 more successes push every failure out of the window: 0 %, re-armed.
        #expect(feed(metrics, successes: 100, failures: 0).isEmpty)
        #expect(metrics.snapshot().windowFailures == 0)
        // 6 failures in the last 100 again: fires again.
        #expect(feed(metrics, successes: 0, failures: 5).isEmpty)
        #expect(feed(metrics, successes: 0, failures: 1).count == 1)
        #expect(metrics.snapshot().highErrorRateEvents == 2)
    }

    @Test func noAlarmBelowTheMinimumSampleSize() {
        let metrics = ResilienceMetrics(policy: MonitoringPolicy(windowSize: 100, minimumSamples: 20))
        #expect(feed(metrics, successes: 7, failures: 3).isEmpty)  // 30 %, but only 10 calls
        let alarms = feed(metrics, successes: 10, failures: 0)
        #expect(alarms == [HighErrorRate(failures: 3, samples: 20, threshold: 0.05)])
        #expect(alarms.first?.rate == 0.15)
    }

    @Test func nonBackendFailuresStayOutOfTheWindowButAreCounted() {
        let metrics = ResilienceMetrics()
        metrics.attemptFailed(FailureClassification(GatewayError.invalidInput(reason: "empty")))
        let snapshot = metrics.snapshot()
        #expect(snapshot.windowSamples == 0)
        #expect(snapshot.errorsByCode == ["invalidInput": 1])
        #expect(snapshot.errorsByCategory == ["validation": 1])
    }
}
