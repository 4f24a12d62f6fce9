import Foundation
import RuleEngine
import SafetyCore
import Testing
import TextNormalization

/// Spans, views, `unless`, limits and threads. Every test runs with and without an emoji prefix:
/// original offsets must move by exactly the prefix's UTF-8 length.
@Suite struct MatcherTests {
    let rules = Fixtures.valid

    func matches(_ text: String, rule: String, locale: Language? = nil) -> [RuleMatch] {
        let result = rules.makeMatcher().match(text, localeLanguage: locale)
        #expect(result.isComplete)
        return result.matches.filter { $0.rule.id == rule }
    }

    /// The original bytes a match covers, as text.
    func covered(_ match: RuleMatch, in text: String) -> String {
        String(decoding: Array(text.utf8)[match.originalRange], as: UTF8.self)
    }

    @Test(arguments: emojiPrefixes)
    func squashedKillInSpacedLettersMapsToTheSpacedBytes(prefix: String) throws {
        let shift = prefix.utf8.count
        let text = prefix + "please k.i.l.l him"
        let found = matches(text, rule: "en.test.kill-word")
        let match = try #require(found.first)
        #expect(found.count == 1)
        #expect(match.view == .squashed)
        #expect(match.originalRange == (7 + shift)..<(14 + shift))
        #expect(match.viewRange == (7 + shift)..<(11 + shift))
        #expect(covered(match, in: text) == "k.i.l.l")
    }

    @Test(arguments: emojiPrefixes)
    func phraseRuleCoversThePhrase(prefix: String) throws {
        let shift = prefix.utf8.count
        let text = prefix + "how do I kill my neighbour"
        let match = try #require(matches(text, rule: "en.violence.kill-person").first)
        #expect(match.originalRange == (9 + shift)..<(26 + shift))
        #expect(covered(match, in: text) == "kill my neighbour")
    }

    @Test(arguments: emojiPrefixes)
    func unlessRejectsOverlappingMatchesButTheSearchGoesOn(prefix: String) throws {
        let shift = prefix.utf8.count
        let text = prefix + "kill the process and then kill"
        let found = matches(text, rule: "en.test.kill-word")
        #expect(found.count == 1)
        let match = try #require(found.first)
        #expect(match.originalRange == (26 + shift)..<(30 + shift))
        #expect(matches(prefix + "kill the process", rule: "en.test.kill-word").isEmpty)
        #expect(matches(prefix + "Kill Bill, then kill the job", rule: "en.test.kill-word").isEmpty)
    }

    @Test(arguments: emojiPrefixes)
    func homoglyphsFullWidthAndZeroWidthMapBackToTheWholeDisguisedWord(prefix: String) throws {
        let shift = prefix.utf8.count
        let disguised = "ｋ\u{200B}іｌｌ"  // full-width k, zero-width space, Cyrillic і, full-width l l
        let text = prefix + disguised + " him"
        let match = try #require(matches(text, rule: "en.violence.kill-person").first)
        #expect(match.view == .squashed)
        #expect(match.originalRange == shift..<(shift + text.utf8.count - prefix.utf8.count))
        #expect(covered(match, in: text) == disguised + " him")
    }

    @Test(arguments: emojiPrefixes)
    func turkishCapitalsAndSuffixesMapToTheOriginalWord(prefix: String) throws {
        let shift = prefix.utf8.count
        let text = prefix + "ONU ÖLDÜRECEĞİM"
        let match = try #require(matches(text, rule: "tr.violence.oldur", locale: .tr).first)
        #expect(match.view == .ascii)
        #expect(match.originalRange == (4 + shift)..<(shift + text.utf8.count - prefix.utf8.count))
        #expect(covered(match, in: text) == "ÖLDÜRECEĞİM")
    }

    @Test(arguments: emojiPrefixes)
    func everyViewOfARuleIsSearchedAndReported(prefix: String) throws {
        let shift = prefix.utf8.count
        let set = try YAMLRules.single(pattern: #"\bkill\b"#, views: [.squashed, .raw])
        let text = prefix + "k.i.l.l or kill"
        let result = set.makeMatcher().match(text)
        let raw = result.matches.filter { $0.view == .raw }
        let squashed = result.matches.filter { $0.view == .squashed }
        #expect(raw.map(\.originalRange) == [(11 + shift)..<(15 + shift)])
        #expect(squashed.map(\.originalRange) == [shift..<(7 + shift), (11 + shift)..<(15 + shift)])
        #expect(result.firedRuleIDs == ["test.rule"])
        let first = set.makeMatcher().match(set.normalize(text), mode: .firstPerRule)
        #expect(first.matches.count == 1)
    }

    @Test(arguments: emojiPrefixes)
    func emptyMatchesAdvanceAndOffsetsStayOnCharacterBoundaries(prefix: String) throws {
        let set = try YAMLRules.single(pattern: #"(?=ş)"#)
        let text = prefix + "aşbş"
        let result = set.makeMatcher().match(text)
        let starts = result.matches.map(\.originalRange.lowerBound)
        let shift = prefix.utf8.count
        #expect(starts == [1 + shift, 4 + shift])
        #expect(result.matches.allSatisfy { $0.originalRange.isEmpty })
    }

    @Test(arguments: emojiPrefixes)
    func catastrophicBacktrackingIsAReportedLimitHitNotAHang(prefix: String) throws {
        let set = try YAMLRules.single(id: "test.redos", pattern: "(a+)+$")
        let matcher = set.makeMatcher()
        let text = set.normalize(prefix + String(repeating: "a", count: 100_000) + "!")
        let clock = ContinuousClock()
        let started = clock.now
        let result = matcher.match(text)
        let elapsed = clock.now - started
        #expect(elapsed < .seconds(1), "took \(elapsed)")
        #expect(result.matches.isEmpty)
        let hit = try #require(result.limitHits.first)
        #expect(hit.ruleID == "test.redos")
        #expect(hit.view == .raw)
        #expect(hit.reason == .matchLimit || hit.reason == .timeBudget)
        #expect(matcher.counters.limitHits == 1)
        #expect(!result.isComplete)
    }

    @Test(arguments: emojiPrefixes)
    func aSearchThatScansTheWholeSubjectPerLimitUnitStopsAtTheTimeBudget(prefix: String) throws {
        // Under the match limit, but each unit rescans the run of spaces: seconds without a budget.
        let set = try YAMLRules.single(id: "test.slow", pattern: #"\bkill\s+(?:a|the)?\s*process"#)
        let text = set.normalize(prefix + "kill " + String(repeating: " ", count: 200_000) + "!process")
        let matcher = set.makeMatcher()
        let clock = ContinuousClock()
        let started = clock.now
        let result = matcher.match(text)
        #expect(clock.now - started < .seconds(1))
        #expect(result.limitHits.map(\.ruleID) == ["test.slow"])
        #expect(result.limitHits.first?.reason == .timeBudget)
    }

    @Test(arguments: emojiPrefixes)
    func aLimitHitInAnUnlessPatternIsReportedAsSuch(prefix: String) throws {
        let set = try YAMLRules.single(pattern: "a", unless: ["(a+)+$"])
        let result = set.makeMatcher().match(prefix + String(repeating: "a", count: 30) + "!")
        let hit = try #require(result.limitHits.first)
        #expect(hit.unlessIndex == 0)
    }

    @Test func aViewThatWasNotBuiltIsAFailureNotACrash() throws {
        let text = NormalizedText("kill him", options: NormalizationOptions(views: [.raw]))
        let result = rules.makeMatcher().match(text)
        #expect(result.failures.contains { $0.ruleID == "en.violence.kill-person" && $0.view == .squashed })
    }

    @Test func onlyTheNamedRulesRunAndDisabledRulesNever() {
        let matcher = rules.makeMatcher()
        let text = rules.normalize("kill him, reschedule the meeting, disabled-rule-pattern")
        #expect(Set(matcher.match(text).firedRuleIDs) == ["en.violence.kill-person", "en.test.kill-word", "en.calendar.meeting"])
        #expect(matcher.match(text, only: ["en.calendar.meeting"]).firedRuleIDs == ["en.calendar.meeting"])
        #expect(matcher.match(text, only: ["en.test.disabled"]).matches.isEmpty)
    }

    @Test func invalidUTF8AndEmptyTextsAreMatchedSafely() {
        let matcher = rules.makeMatcher()
        let broken = NormalizedText(bytes: Array("kill him ".utf8) + [0xFF, 0xC3], options: rules.normalizationOptions())
        #expect(matcher.match(broken).fired("en.violence.kill-person"))
        #expect(matcher.match("").matches.isEmpty)
    }

    @Test func theRuleSetBuildsOnlyTheViewsItsEnabledRulesRead() {
        #expect(rules.views == [.squashed, .ascii, .folded])
        #expect(rules.normalizationOptions(localeLanguage: .tr).localeLanguage == .tr)
    }

    @Test func oneRuleSetIsSharedByManyThreadsEachWithItsOwnMatcher() async {
        let set = rules
        let texts = ["kill him", "kill the process", "please k.i.l.l him", "move my meeting", "onu öldüreceğim"]
        let expected = texts.map { set.makeMatcher().match($0).matches }
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let matcher = set.makeMatcher()
                    return (0..<50).allSatisfy { round in
                        let i = round % texts.count
                        return matcher.match(texts[i]).matches == expected[i]
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}

/// A view the rule set does not read is never scanned, so it must not stand for a view with the
/// same bytes that is read (lowercase ASCII: raw and folded are the same array).
@Suite struct UnreadViewTests {
    @Test func aBuiltViewNoRuleReadsDoesNotHideTheSameBytesInAReadOne() throws {
        let set = try CompiledRuleSet(rules: [DeferredCompilationTests.rule("t.kill", #"\bkill\b"#, views: [.folded])])
        let matcher = set.makeMatcher()
        // Every view built, raw included, though only folded is read.
        let text = NormalizedText("please kill the process")
        #expect(text.view(.raw).utf8 == text.view(.folded).utf8)
        for _ in 0..<2 {
            #expect(matcher.match(text).firedRuleIDs == ["t.kill"])
            #expect(matcher.match(NormalizedText("nothing here")).firedRuleIDs.isEmpty)
        }
    }
}
