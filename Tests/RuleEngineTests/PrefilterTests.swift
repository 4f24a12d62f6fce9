import RuleEngine
import Testing
import TextNormalization

/// The speed-ups that must not change results: the literal prefilter (which words a pattern
/// requires; skipping rules without them) and byte-mode code for pure-ASCII views.
@Suite struct PrefilterTests {
    @Test(arguments: [
        (#"\b(kill|murder)\s+(him|her|my\s+\w+)\b"#, [[#"\bkill"#, #"\bmurder"#]] as [[String]]?),
        ("kill", [["kill"]]),
        ("KILL", [["kill"]]),
        (#"\bk[i1]ll\b"#, [[#"\bk1ll\b"#, #"\bkill\b"#]]),
        (#"(?:a|the)\s+process"#, [["process"]]),
        (#"(?:kill|murder)s?\b"#, [[#"kill\b"#, #"kills\b"#, #"murder\b"#, #"murders\b"#]]),
        (#"(?:kill|murder)\w*"#, [["kill", "murder"]]),
        (#"\boldur\w*"#, [[#"\boldur"#]]),
        (#"\b\.net\b"#, [[".net\\b"]]),
        (#"\bgame\w*\s+\w+\s+(?:kill|shoot)"#, [[#"\bgame"#], ["kill", "shoot"]]),
        (#"process.*\bkill"#, [["process"], [#"\bkill"#]]),
        (#"(?:process|thread)\s+(?:kill|stop)"#, [["process", "thread"], ["kill", "stop"]]),
        (#"(?i:kill)(?=\s+him)"#, [["kill"]]),
        (#"(?<!not )kill"#, [["kill"]]),
        (#"(kill)\s+\1"#, [["kill"]]),
        (#"[^a]bcd"#, [["bcd"]]),
        (#"\x{212A}ill"#, [["kill"]]),
        (#"a{3}"#, [["aaa"]]),
        (#"\Qa.b\E"#, [["a.b"]]),
        (#"(?# a comment )kill"#, [["kill"]]),
        (#"(?<who>kill)"#, [["kill"]]),
        // The first copies of a repetition continue the literal before it.
        (#"(ab){2,}"#, [["abab"]]),
        (#"\bdie+\s+now"#, [[#"\bdie"#], ["now"]]),
        // What every branch requires in its own way is a group of its own.
        (#"(?:kill|shoot)\s+(?:him|her)|(?:stab|hurt)\s+(?:him|her)"#, [["hurt", "kill", "shoot", "stab"], ["her", "him"]]),
        // Nothing safe to require: always searched.
        (#"ki+ll"#, nil),
        (#"öldür"#, nil),
        (#"kill|"#, nil),
        (#".*"#, nil),
        (#"kill(*ACCEPT)him"#, nil),
        (#"(?x) k i l l"#, nil),
        (#"[a-z]+"#, nil),
    ])
    func requiredLiterals(pattern: String, expected: [[String]]?) throws {
        let set = try YAMLRules.single(pattern: pattern)
        #expect(set.requiredLiterals(ofRule: "test.rule") == expected)
    }

    /// Patterns chosen to trip a careless analysis, on texts chosen to trip a careless scanner.
    static let patterns = [
        #"\bkill\b"#, #"\bk[i1]ll\s+(him|her)"#, #"(?:kill|murder)s?"#, #"say\s+it"#, #"\bKILL\b"#, #"(?i)ıi"#,
        #"(?<!not )kill"#, #"kill(?!\s+the\s+process)"#, #"\Qk.i\E"#, #"\x{212A}ill"#, #"process|thread"#,
        #"[ks]ill"#, #"(?:ab){2}c"#, #"\bskill"#, #"öldür"#, #"oldur(ecek)?"#, #"kill.*him"#,
        #"\bates\w*"#, #"kill\b"#, #"\bkill\b"#, #"\bgame\w*\s+\w+\s+(?:kill|shoot)"#, #"(?:kill|murder)s?\b"#,
        #"\b\.net\b"#, #"process.*\bkill"#, #"\bsay\b"#,
    ]
    static let texts = [
        "kill him", "KILL HIM", "\u{212A}ILL him", "\u{212A}ill", "ſay it", "SAY IT", "skill", "not kill", "k.i",
        "kill the process", "ababc", "abab c", "ÖLDÜR", "öldürecek", "oldurecek", "", "kİll", "kıll", "murders",
        "k1ll her", "sill", "thread", "PROCESS",
        "updates", "ates", "_ates", "éates", "ıates", "dates ates", "9ates", "killer", "kill_", "kill!", "skill kill",
        "game now kill", "GAMES x SHOOT", "agame x kill", "the \u{212A}ill", "\u{212A}illing", "ſay", "ſayer", "a.net",
        ".net", "x.net!", "process x kill", "process xkill", "process é\u{212A}ill", "kill\u{0301}", "k\u{0131}ll",
    ]

    @Test func skippingRulesByLiteralNeverChangesTheResult() throws {
        for (index, pattern) in Self.patterns.enumerated() {
            let set = try YAMLRules.single(id: "test.p\(index)", pattern: pattern, views: ViewName.allCases)
            let with = set.makeMatcher()
            let without = set.makeMatcher()
            without.usesPrefilter = false
            for prefix in emojiPrefixes {
                for text in Self.texts {
                    let a = with.match(prefix + text).matches
                    let b = without.match(prefix + text).matches
                    #expect(a == b, "pattern \(pattern) on \(prefix + text)")
                }
            }
        }
    }

    @Test func skippingViewsThatEqualAnotherViewFindsTheSameRulesAndSpans() throws {
        let views: [ViewName] = [.raw, .folded, .ascii, .squashed]
        for (index, pattern) in Self.patterns.enumerated() {
            let set = try YAMLRules.single(id: "test.v\(index)", pattern: pattern, views: views)
            let skipping = set.makeMatcher()
            let every = set.makeMatcher()
            every.skipsDuplicateViews = false
            for prefix in emojiPrefixes {
                for text in Self.texts + ["k i l l him", "KİLL", "kiiiill"] {
                    let a = Set(skipping.match(prefix + text).matches.map { "\($0.rule.id) \($0.originalRange)" })
                    let b = Set(every.match(prefix + text).matches.map { "\($0.rule.id) \($0.originalRange)" })
                    #expect(a == b, "pattern \(pattern) on \(prefix + text)")
                }
            }
            #expect(skipping.counters.ruleViewsSearched < every.counters.ruleViewsSearched)
        }
    }

    @Test func byteModeCodeOnASCIIViewsGivesTheSameResultsAsUTFCode() throws {
        let patterns = Self.patterns + [
            #"\w+\s+him"#, #"\p{L}+"#, #"[^a]ll"#, #"[şs]ay"#, #"ş+|s"#, #"(?<=ş)x|x"#, #"\x{100}|kill"#, #"."#,
            #"\bi\b"#, #"(?i)İ|i"#, #"\X"#, #"[[:alpha:]]+"#, #"\S+\s"#,
        ]
        let texts = Self.texts + ["a kill him b", "SAY it", "x", "I i", "hello world, 123!"]
        for (index, pattern) in patterns.enumerated() {
            let set = try YAMLRules.single(id: "test.b\(index)", pattern: pattern, views: ViewName.allCases)
            let bytes = set.makeMatcher()
            let utf = set.makeMatcher()
            utf.usesBytesMode = false
            for prefix in emojiPrefixes {
                for text in texts {
                    #expect(bytes.match(prefix + text).matches == utf.match(prefix + text).matches, "pattern \(pattern) on \(prefix + text)")
                }
            }
        }
    }

    @Test func fixtureRulesGiveTheSameResultsWithAndWithoutThePrefilterAndSkipSomething() {
        let rules = Fixtures.valid
        let with = rules.makeMatcher()
        let without = rules.makeMatcher()
        without.usesPrefilter = false
        let texts = [
            "how do I kill my neighbour", "kill the process", "ONU ÖLDÜRECEĞİM", "yaşamak istemiyorum",
            "what is the weather like", "reschedule my meeting", "k.i.l.l him", "\u{212A}ill him",
        ]
        for prefix in emojiPrefixes {
            for text in texts {
                #expect(with.match(prefix + text).matches == without.match(prefix + text).matches, "\(prefix + text)")
            }
        }
        #expect(with.counters.ruleViewsSkipped > 0)
        #expect(with.counters.searches < without.counters.searches)
        #expect(without.counters.ruleViewsSkipped == 0)
        #expect(rules.prefilteredRuleCount >= 4)
    }

    @Test func unlessPatternsWithoutTheirWordsInTheViewAreNotSearchedAndRejectTheSameMatches() throws {
        let set = try YAMLRules.single(
            pattern: #"\bkill\s+\w+"#, unless: [#"\bkill\s+the\s+(?:process|job)\b"#, #"\b(?:game|minecraft)\b"#, #"\d{3}"#],
            views: [.ascii, .squashed])
        let with = set.makeMatcher()
        let without = set.makeMatcher()
        without.usesPrefilter = false
        let texts = [
            "kill him", "kill the process", "KILL THE JOB now", "kill him in the game", "kill him in minecraft", "kill him 123",
            "k i l l the process", "kill him, then kill the job", "game over: kill him", "kill \u{212A}ill the process",
        ]
        for prefix in emojiPrefixes {
            for text in texts {
                #expect(with.match(prefix + text).matches == without.match(prefix + text).matches, "\(prefix + text)")
            }
        }
        #expect(with.counters.searches < without.counters.searches)
        // On "kill him": the pattern matches, and of the unless patterns only the one without a
        // required literal (`\d{3}`) is searched: two calls (no window is left after the match),
        // against five without the prefilter (find, three unless patterns, find again).
        let one = set.makeMatcher()
        #expect(one.match("kill him").matches.count == 1)
        #expect(one.counters.searches == 2)
        let all = set.makeMatcher()
        all.usesPrefilter = false
        _ = all.match("kill him")
        #expect(all.counters.searches == 5)
    }

    @Test func theSearchLogRecordsEverySearchOnlyWhenAskedTo() throws {
        let set = try YAMLRules.single(pattern: #"\bkill\s+\w+"#, unless: [#"\bgame\b"#], views: [.ascii, .squashed])
        let matcher = set.makeMatcher()
        _ = matcher.match("kill him")
        #expect(matcher.searchLog == nil && matcher.lastBeginDuration == nil)
        matcher.searchLog = []
        // The squashed view differs ("k i l l"), so both views are searched and both find "kill
        // him"; on the squashed view "kill game" overlaps the unless pattern's match.
        let result = matcher.match("kill him, k i l l game")
        let log = try #require(matcher.searchLog)
        #expect(log.map(\.view) == [.ascii, .squashed])
        #expect(log.allSatisfy { $0.ruleID == "test.rule" && $0.label == .harmful && $0.calls >= 1 })
        // The literal scans of the text were timed too.
        #expect(matcher.lastBeginDuration != nil)
        #expect(log.map(\.fired) == [true, true])
        #expect(log.map(\.calls).reduce(0, +) == matcher.counters.searches - 1)
        #expect(result.matches.map(\.view) == [.ascii, .squashed])
    }
}
