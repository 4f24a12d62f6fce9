import Foundation
import SafetyCore
import Testing

@testable import Refusals

/// The crisis data: complete, sourced, dated, ordered as the emergency reply needs, and free of
/// numbers that must never be shown.
struct CrisisDataTests {
    static let requiredRegions = ["TR", "US", "GB", "IE", "CA", "AU", "NZ", "DE", "NL", "FR", "EU", "*"]

    @Test func everyRequiredRegionIsThere() throws {
        let directory = try CrisisDirectory.bundled()
        for code in Self.requiredRegions {
            #expect(directory.regions[code] != nil, "no entry for \(code)")
        }
    }

    /// Every region has a 24/7 entry with a phone number, and every entry a source and a date.
    @Test func everyRegionHasAnAlwaysOpenPhoneWithSourceAndDate() throws {
        let directory = try CrisisDirectory.bundled()
        for region in directory.regions.values {
            let open = region.services.filter { $0.alwaysOpen && $0.hasPhone }
            #expect(!open.isEmpty, "\(region.code) has no 24/7 phone entry")
            #expect(
                region.replyServices.contains { $0.alwaysOpen && $0.hasPhone },
                "\(region.code) replies without a 24/7 phone")
            for service in region.services {
                #expect(service.source.hasPrefix("http"), "\(service.id) has no source")
                #expect(
                    service.verifiedOn.count == 10 && service.verifiedOn.hasPrefix("20"),
                    "\(service.id): \(service.verifiedOn)")
                #expect(!service.verification.isEmpty)
            }
        }
    }

    /// Numbers are stored as dialled inside the country: digits only, short codes short.
    @Test func numbersAreDialledLocally() throws {
        let directory = try CrisisDirectory.bundled()
        var dials: Set<String> = []
        for service in directory.regions.values.flatMap(\.services) {
            for channel in service.channels where channel.kind == .call || channel.kind == .text {
                let dial = try #require(channel.dial)
                #expect(dial.allSatisfy { $0.isASCII && $0.isNumber }, "\(service.id): \(dial)")
                #expect(!(channel.display ?? "").contains("+"), "\(service.id) uses an international form")
                dials.insert(dial)
            }
        }
        for shortCode in ["988", "116123", "3114", "1737", "113", "112", "911", "999", "000", "111"] {
            #expect(dials.contains(shortCode), "\(shortCode) is missing or not stored as a short code")
        }
    }

    /// The reply lists the crisis line first and the emergency number next; where there is no
    /// crisis line (Türkiye, EU, unknown regions) the emergency number leads.
    @Test func repliesListTheCrisisLineThenTheEmergencyNumber() throws {
        let directory = try CrisisDirectory.bundled()
        for region in directory.regions.values {
            let kinds = region.replyServices.map(\.kind)
            if kinds.contains(.crisisLine) {
                #expect(Array(kinds.prefix(2)) == [.crisisLine, .emergency], "\(region.code): \(kinds)")
            } else {
                #expect(kinds.first == .emergency, "\(region.code): \(kinds)")
            }
        }
    }

    @Test func turkiyeLeadsWith112AndDescribes183Honestly() throws {
        let generator = try Fixtures.generator()
        let turkey = generator.directory.region(for: "TR")
        #expect(turkey.replyServices.map(\.id) == ["tr-112", "tr-acil-servis", "tr-183"])
        #expect(!turkey.services.contains { $0.kind == .crisisLine }, "Türkiye has no national suicide line")

        let tr = generator.emergency(language: .tr, region: "TR").text
        let en = generator.emergency(language: .en, region: "TR").text
        for text in [tr, en] {
            let first112 = try #require(text.range(of: "112"))
            let first183 = try #require(text.range(of: "183"))
            #expect(first112.lowerBound < first183.lowerBound)
            #expect(!text.contains("911"))
        }
        #expect(tr.contains("İntihar hattı değildir"))
        #expect(tr.contains("Acil Servis") || tr.contains("acil servis"))
        #expect(en.contains("not a suicide line"))
        #expect(en.contains("Acil Servis"))
    }

    @Test func regionResolution() throws {
        let directory = try CrisisDirectory.bundled()
        #expect(directory.region(for: "tr").code == "TR")
        #expect(directory.region(for: "UK").code == "GB")
        #expect(directory.region(for: "ES").code == "EU")
        #expect(directory.region(for: "IT").code == "EU")
        #expect(directory.region(for: "DE").code == "DE", "own entry wins over EU coverage")
        #expect(directory.region(for: "JP").isFallback)
        #expect(directory.region(for: nil).isFallback)
        #expect(directory.region(for: "*").isFallback)
    }

    @Test(arguments: [Language.en, .tr]) func unknownRegionsGetTheFallback(language: Language) throws {
        let reply = try Fixtures.generator().emergency(language: language, region: "JP")
        #expect(reply.region == "*")
        for number in ["112", "911", "999", "000", "111", "findahelpline.com"] {
            #expect(reply.text.contains(number), "fallback lacks \(number)")
        }
        #expect(reply.text.contains(language == .en ? "needs internet" : "internet gerekir"))
    }

    /// The acceptance examples of issue 5, at the library level.
    @Test func acceptanceExamples() throws {
        let generator = try Fixtures.generator()
        let turkish = generator.emergency(language: .tr, region: "TR")
        #expect(turkish.language == .tr && turkish.text.contains("112"))
        let american = generator.emergency(language: .en, region: "US")
        #expect(american.text.contains("988"))
        let first988 = try #require(american.text.range(of: "988"))
        let first911 = try #require(american.text.range(of: "911"))
        #expect(first988.lowerBound < first911.lowerBound)
        #expect(american.resources.map(\.id) == ["us-988", "us-911"])
    }

    // MARK: Do-not-use numbers

    @Test func theDoNotUseListHasTheKnownBadNumbers() throws {
        let numbers = Set(try CrisisDirectory.bundled().doNotUse.map(\.normalized))
        for bad in [
            "182", "184", "18334564566", "45645", "08457909090", "07725909090", "1850609090", "09000113", "09001130113",
            "+35316210000", "+33333114", "+1988",
        ] {
            #expect(numbers.contains(bad), "\(bad) is not on the do_not_use list")
        }
    }

    /// Fails if a do-not-use number appears anywhere: in the data outside its do_not_use list,
    /// in either catalog, or in any reply.
    @Test func doNotUseNumbersAppearNowhere() throws {
        let generator = try Fixtures.generator()
        let directory = generator.directory
        let data = try #require(BundledFiles.text(at: CrisisDirectory.bundledPath))
        let outsideList = try #require(data.components(separatedBy: "\"do_not_use\"").first)
        var texts: [(String, String)] = [("resources.json outside do_not_use", outsideList)]
        for path in BundledFiles.paths(under: "catalogs/") {
            texts.append((path, try #require(BundledFiles.text(at: path))))
        }
        for language in [Language.en, .tr] {
            for region in Fixtures.regionCodes(generator) {
                texts.append(
                    ("emergency \(region) \(language)", generator.emergency(language: language, region: region).text))
                texts.append(("all \(region) \(language)", generator.allResources(language: language, region: region)))
                let reply = generator.refusal(.selfHarm, language: language, region: region)
                texts.append(("resources JSON \(region) \(language)", reply.resourcesJSON.text))
            }
        }
        for (name, text) in texts {
            let found = directory.forbiddenNumbers(in: text)
            #expect(found.isEmpty, "\(name) contains \(found.map(\.number))")
        }
    }

    @Test func theCheckerFindsForbiddenNumbersHoweverWritten() throws {
        let directory = try CrisisDirectory.bundled()
        for text in [
            "Call 182", "Arayın: 112 veya 182", "ALO 184", "1-833-456-4566", "1 833 456 4566",
            "text 45645", "08457 90 90 90", "0845 790 9090", "1850 60 90 90", "0900-0113", "+353 (0)1 621 0000",
            "+33 3 33 114", "+1 988",
        ] {
            #expect(!directory.forbiddenNumbers(in: text).isEmpty, "missed: \(text)")
        }
        for text in [
            "Call 112", "116 123", "0800-0113", "Call 988", "1988 was a year", "183", "2026-11-21", "0800 111 0 111",
        ] {
            #expect(directory.forbiddenNumbers(in: text).isEmpty, "false alarm: \(text)")
        }
    }

    @Test func dataWithADoNotUseNumberDoesNotLoad() throws {
        let data = try #require(BundledFiles.text(at: CrisisDirectory.bundledPath))
        let poisoned = data.replacingFirst("\"display\": \"183\"", with: "\"display\": \"182\"")
            .replacingFirst("\"dial\": \"183\"", with: "\"dial\": \"182\"")
        #expect(poisoned != data)
        do {
            _ = try CrisisDirectory.load(text: poisoned, file: "crisis/resources.json")
            Issue.record("182 loaded")
        } catch {
            guard case .configuration(let file, let line, let reason) = error.kind else {
                Issue.record("expected a configuration error, got \(error)")
                return
            }
            #expect(file == "crisis/resources.json")
            #expect(reason.contains("do_not_use"))
            #expect(line == CatalogTests.lineOf("\"display\": \"182\"", in: poisoned))
        }
    }

    // MARK: Loading errors name file and line

    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var old: String
        var new: String
        var lineText: String?
        var reason: String
        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(
            name: "international form of a short code", old: "\"dial\": \"988\"", new: "\"dial\": \"+1988\"",
            lineText: "\"dial\": \"+1988\"", reason: "digits dialled inside the country"),
        Breakage(
            name: "display and dial disagree", old: "\"dial\": \"116123\"", new: "\"dial\": \"116124\"",
            lineText: "\"display\": \"116 123\"", reason: "does not match"),
        Breakage(
            name: "bad date", old: "\"verified_on\": \"2026-11-21\"", new: "\"verified_on\": \"21.11.2026\"",
            lineText: "21.11.2026", reason: "verified_on"),
        Breakage(
            name: "unknown key", old: "\"always_open\": true,", new: "\"always_open\": true, \"open_24_7\": true,",
            lineText: "open_24_7", reason: "unknown key `open_24_7`"),
        Breakage(
            name: "unknown kind", old: "\"kind\": \"emergency\"", new: "\"kind\": \"emergancy\"",
            lineText: "emergancy", reason: "unknown kind"),
        Breakage(name: "JSON syntax", old: "\"schema\": 1,", new: "\"schema\": 1,,", lineText: nil, reason: "parsing"),
    ]

    @Test(arguments: breakages) func brokenDataIsAConfigurationError(_ breakage: Breakage) throws {
        let data = try #require(BundledFiles.text(at: CrisisDirectory.bundledPath))
        let broken = data.replacingFirst(breakage.old, with: breakage.new)
        #expect(broken != data)
        do {
            _ = try CrisisDirectory.load(text: broken, file: "crisis/resources.json")
            Issue.record("broken data loaded")
        } catch {
            guard case .configuration(let file, let line, let reason) = error.kind else {
                Issue.record("expected a configuration error, got \(error)")
                return
            }
            #expect(file == "crisis/resources.json")
            #expect(reason.contains(breakage.reason), "reason: \(reason)")
            if let lineText = breakage.lineText {
                #expect(
                    line == CatalogTests.lineOf(lineText, in: broken), "line \(String(describing: line)): \(reason)")
            } else {
                #expect(line != nil)
            }
        }
    }

    @Test func aRegionWithoutAnAlwaysOpenPhoneDoesNotLoad() throws {
        let data = try #require(BundledFiles.text(at: CrisisDirectory.bundledPath))
        // NZ's two services both lose their always-open flag.
        var broken = data
        for id in ["nz-1737", "nz-111"] {
            let start = try #require(broken.range(of: "\"id\": \"\(id)\""))
            let flag = try #require(
                broken.range(of: "\"always_open\": true", range: start.upperBound..<broken.endIndex))
            broken.replaceSubrange(flag, with: "\"always_open\": false")
        }
        #expect(throws: GatewayError.self) { try CrisisDirectory.load(text: broken, file: "crisis/resources.json") }
        do {
            _ = try CrisisDirectory.load(text: broken, file: "crisis/resources.json")
        } catch {
            #expect(error.description.contains("region NZ needs a service that is open 24/7"))
        }
    }

    // MARK: JSON for `respond --json`

    @Test func resourcesJSONCarriesNumbersAndProvenance() throws {
        let reply = try Fixtures.generator().emergency(language: .en, region: "US")
        let json = reply.resourcesJSON.text
        #expect(json.hasPrefix("[{\"id\":\"us-988\",\"kind\":\"crisisLine\""))
        #expect(json.contains("\"number\":\"988\",\"dial\":\"988\""))
        #expect(json.contains("\"source\":\"https://988lifeline.org/get-help/what-to-expect\""))
        #expect(json.contains("\"verified_on\":\"2026-11-21\""))
        #expect(reply.region == "US")
    }
}
