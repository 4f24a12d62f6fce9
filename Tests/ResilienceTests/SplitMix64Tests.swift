import Resilience
import Testing

struct SplitMix64Tests {
    @Test func matchesTheReferenceSequence() {
        // The reference implementation's first outputs for seed 1234567.
        var random = SplitMix64(seed: 1_234_567)
        let outputs = (0..<5).map { _ in random.next() }
        #expect(outputs == [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ])
    }

    @Test func sameSeedSameSequence() {
        var first = SplitMix64(seed: 99)
        var second = SplitMix64(seed: 99)
        #expect((0..<100).map { _ in first.next() } == (0..<100).map { _ in second.next() })
    }
}
