public import SafetyCore

extension CrisisDirectory {
    /// Loads and checks crisis data in the format of `Resources/crisis/resources.json`.
    ///
    /// Anything wrong is a configuration error naming `file` and line: unknown keys, a number
    /// that is not digits as dialled in the country, a `+CC` short code, a missing source or
    /// verification date, a region without an always-open service with a phone number, and any
    /// number on the `do_not_use` list appearing in a service.
    public static func load(text: String, file: String) throws(GatewayError) -> CrisisDirectory {
        var top = try TreeFields(YAMLTree.parse(text, file: file), file: file, what: "the crisis data")
        guard try top.int("schema") == 1 else {
            throw top.error("unsupported `schema`; this safegate reads schema 1", at: top.lineOf("schema"))
        }
        _ = try top.strings("notes")

        var doNotUse: [DoNotUseNumber] = []
        for item in try top.sequence("do_not_use") {
            var fields = try TreeFields(item, file: file, what: "a do_not_use entry")
            let entry = DoNotUseNumber(
                region: try fields.string("region"), number: try fields.string("number"),
                why: try fields.string("why"), source: try fields.optionalString("source"))
            guard entry.normalized.count >= 2 else { throw fields.error("a do_not_use number needs digits") }
            try fields.rejectUnknownKeys()
            doNotUse.append(entry)
        }

        var aliases: [String: String] = [:]
        if let tree = top.optionalTree("aliases") {
            var fields = try TreeFields(tree, file: file, what: "aliases")
            for (alias, target) in try fields.localizedAll() { aliases[alias] = target }
        }

        var regions: [String: CrisisRegion] = [:]
        var serviceIDs: Set<String> = []
        for item in try top.sequence("regions") {
            let region = try loadRegion(item, file: file, doNotUse: doNotUse, serviceIDs: &serviceIDs)
            guard regions[region.code] == nil else {
                throw .configuration(file: file, line: item.line, reason: "region \(region.code) appears twice")
            }
            regions[region.code] = region
        }
        try top.rejectUnknownKeys()

        guard let fallback = regions[fallbackCode] else {
            throw top.error("the fallback region `*` is missing")
        }
        for (alias, target) in aliases where regions[target] == nil {
            throw top.error("alias \(alias) points at \(target), which is not a region", at: top.lineOf("aliases"))
        }
        return CrisisDirectory(regions: regions, aliases: aliases, doNotUse: doNotUse, fallback: fallback)
    }

    private static func loadRegion(
        _ tree: YAMLTree, file: String, doNotUse: [DoNotUseNumber], serviceIDs: inout Set<String>
    ) throws(GatewayError) -> CrisisRegion {
        var fields = try TreeFields(tree, file: file, what: "a region")
        let code = try fields.string("code")
        guard code == fallbackCode || (code.count == 2 && code.allSatisfy { $0.isASCII && $0.isUppercase }) else {
            throw fields.error(
                "region code \(code) must be two capital letters, or * for the fallback", at: fields.lineOf("code"))
        }
        let name = try fields.localized("name")
        let covers = try fields.strings("covers")
        var services: [CrisisService] = []
        for item in try fields.sequence("services") {
            let service = try loadService(item, file: file, region: code, doNotUse: doNotUse)
            guard serviceIDs.insert(service.id).inserted else {
                throw .configuration(file: file, line: item.line, reason: "service id \(service.id) appears twice")
            }
            services.append(service)
        }
        try fields.rejectUnknownKeys()
        guard services.contains(where: { $0.alwaysOpen && $0.hasPhone }) else {
            throw fields.error("region \(code) needs a service that is open 24/7 and has a phone number")
        }
        services.sort { ($0.priority, $0.id) < ($1.priority, $1.id) }
        return CrisisRegion(code: code, name: name, covers: covers, services: services)
    }

    private static func loadService(
        _ tree: YAMLTree, file: String, region: String, doNotUse: [DoNotUseNumber]
    ) throws(GatewayError) -> CrisisService {
        var fields = try TreeFields(tree, file: file, what: "a service")
        let id = try fields.string("id")
        fields = try TreeFields(tree, file: file, what: "service \(id)")
        _ = try fields.string("id")
        let kindName = try fields.string("kind")
        guard let kind = CrisisService.Kind(rawValue: kindName) else {
            throw fields.error(
                "unknown kind \(kindName); use \(CrisisService.Kind.allCases.map(\.rawValue).joined(separator: ", "))",
                at: fields.lineOf("kind"))
        }
        var channels: [CrisisChannel] = []
        for item in try fields.sequence("channels") {
            channels.append(try loadChannel(item, file: file, service: id, doNotUse: doNotUse))
        }
        let verifiedOn = try fields.string("verified_on")
        guard isISODate(verifiedOn) else {
            throw fields.error("`verified_on` must be a date like 2026-11-21", at: fields.lineOf("verified_on"))
        }
        let source = try fields.string("source")
        guard source.hasPrefix("https://") || source.hasPrefix("http://") else {
            throw fields.error("`source` must be a web address", at: fields.lineOf("source"))
        }
        let confidence = try fields.string("confidence")
        guard ["high", "medium"].contains(confidence) else {
            throw fields.error("`confidence` must be high or medium", at: fields.lineOf("confidence"))
        }
        let service = CrisisService(
            id: id, kind: kind, priority: try fields.int("priority"), inReply: try fields.bool("in_reply"),
            name: try fields.localized("name"), summary: try fields.localized("summary", required: false),
            channels: channels, alwaysOpen: try fields.bool("always_open"),
            hours: try fields.localized("hours", required: false), languages: try fields.strings("languages"),
            free: try fields.optionalBool("free"), source: source, crosscheck: try fields.strings("crosscheck"),
            verifiedOn: verifiedOn, verification: try fields.string("verification"), confidence: confidence,
            unconfirmed: try fields.strings("unconfirmed"))
        guard service.name["local"] != nil || service.name["en"] != nil else {
            throw fields.error("service \(id) needs `name.local` or `name.en`")
        }
        try fields.rejectUnknownKeys()
        return service
    }

    private static func loadChannel(
        _ tree: YAMLTree, file: String, service: String, doNotUse: [DoNotUseNumber]
    ) throws(GatewayError) -> CrisisChannel {
        var fields = try TreeFields(tree, file: file, what: "a channel of \(service)")
        let kindName = try fields.string("type")
        guard let kind = CrisisChannel.Kind(rawValue: kindName) else {
            throw fields.error("unknown channel type \(kindName)", at: fields.lineOf("type"))
        }
        var channel = CrisisChannel(
            kind: kind, display: nil, dial: nil, keyword: nil, url: nil, address: nil, note: [:])
        switch kind {
        case .call, .text:
            let display = try fields.string("display")
            let dial = try fields.string("dial")
            guard dial.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw fields.error(
                    "`dial` of \(service) must be the digits dialled inside the country: no +, spaces or words",
                    at: fields.lineOf("dial"))
            }
            guard PhoneNumbers.normalize(display) == dial else {
                throw fields.error(
                    "`display` \(display) of \(service) does not match `dial` \(dial)", at: fields.lineOf("display"))
            }
            for forbidden in doNotUse where PhoneNumbers.contains(display, forbidden: forbidden.normalized) {
                throw fields.error(
                    "\(display) of \(service) is on the do_not_use list: \(forbidden.why)", at: fields.lineOf("display")
                )
            }
            channel.display = display
            channel.dial = dial
            if kind == .text { channel.keyword = try fields.optionalString("keyword") }
        case .chat, .web:
            let url = try fields.string("url")
            guard url.hasPrefix("https://") else {
                throw fields.error("`url` of \(service) must start with https://", at: fields.lineOf("url"))
            }
            channel.url = url
        case .email:
            channel.address = try fields.string("address")
        }
        channel.note = try fields.localized("note", required: false)
        try fields.rejectUnknownKeys()
        return channel
    }

    private static func isISODate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.map(\.count) == [4, 2, 2],
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let month = Int(parts[1]), let day = Int(parts[2])
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }

    /// Every do-not-use number that appears in `text`.
    public func forbiddenNumbers(in text: String) -> [DoNotUseNumber] {
        let runs = PhoneNumbers.runs(in: text)
        guard !runs.isEmpty else { return [] }
        return doNotUse.filter { entry in
            let forbidden = entry.normalized
            return runs.contains { PhoneNumbers.matches(run: $0, forbidden: forbidden) }
        }
    }
}

extension TreeFields {
    /// Every entry of this mapping as text (for flat string maps such as `aliases`).
    mutating func localizedAll() throws(GatewayError) -> [String: String] {
        var out: [String: String] = [:]
        for key in allKeys { out[key] = try string(key) }
        return out
    }
}
