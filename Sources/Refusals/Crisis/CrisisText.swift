public import SafetyCore

extension RefusalGenerator {
    /// The heading and one entry per service, in the catalog's language:
    ///
    /// ```
    /// Who you can reach right now (United States):
    /// • 988 Suicide & Crisis Lifeline — 24/7
    ///   Call 988 · Text 988 · Chat: https://988lifeline.org/chat
    /// ```
    func crisisBlock(_ region: CrisisRegion, services: [CrisisService], catalog: Catalog) -> String {
        let language = catalog.language
        let heading =
            region.isFallback
            ? catalog.text(.crisisHeadingUnknown)
            : catalog.text(
                .crisisHeading, ["region": region.name[language.rawValue] ?? region.name["en"] ?? region.code])
        var lines = [heading]
        for service in services {
            lines.append(contentsOf: entry(service, catalog: catalog))
        }
        return lines.joined(separator: "\n")
    }

    private func entry(_ service: CrisisService, catalog: Catalog) -> [String] {
        let language = catalog.language
        var first = "• " + TerminalEscaping.escaped(service.displayName(in: language))
        if service.alwaysOpen {
            first += " — " + catalog.text(.crisisHours24)
        } else if let hours = service.hours[language.rawValue] ?? service.hours["en"] {
            first += " — " + TerminalEscaping.escaped(hours)
        }
        if !service.languages.isEmpty, !service.languages.contains(language.rawValue) {
            let names = service.languages.map { code in
                catalog.has(.languageName(code)) ? catalog.text(.languageName(code)) : code
            }
            first += " (" + catalog.text(.crisisLanguageNote, ["languages": names.joined(separator: ", ")]) + ")"
        }
        var lines = [first]
        let channels = channelText(service.channels, catalog: catalog)
        if !channels.isEmpty { lines.append("  " + channels) }
        if let summary = service.summary[language.rawValue] ?? service.summary["en"] {
            lines.append("  " + TerminalEscaping.escaped(summary))
        }
        return lines
    }

    /// The channels on one line: consecutive calls grouped (`Call 112 or 999`), the rest after.
    private func channelText(_ channels: [CrisisChannel], catalog: Catalog) -> String {
        let language = catalog.language.rawValue
        var parts: [String] = []
        var calls: [String] = []
        func flushCalls() {
            guard !calls.isEmpty else { return }
            let or = " " + catalog.text(.crisisOr) + " "
            parts.append(catalog.text(.crisisCall, ["numbers": calls.joined(separator: or)]))
            calls = []
        }
        func noted(_ text: String, _ channel: CrisisChannel) -> String {
            guard let note = channel.note[language] ?? channel.note["en"] else { return text }
            return "\(text) (\(note))"
        }
        for channel in channels {
            if channel.kind == .call, let display = channel.display {
                calls.append(noted(display, channel))
                continue
            }
            flushCalls()
            switch channel.kind {
            case .call: break
            case .text:
                let number = noted(channel.display ?? "", channel)
                if let keyword = channel.keyword {
                    parts.append(catalog.text(.crisisTextKeyword, ["keyword": keyword, "number": number]))
                } else {
                    parts.append(catalog.text(.crisisText, ["number": number]))
                }
            case .chat: parts.append(catalog.text(.crisisChat, ["url": noted(channel.url ?? "", channel)]))
            case .web: parts.append(catalog.text(.crisisWeb, ["url": noted(channel.url ?? "", channel)]))
            case .email: parts.append(catalog.text(.crisisEmail, ["address": noted(channel.address ?? "", channel)]))
            }
        }
        flushCalls()
        return parts.joined(separator: " · ")
    }
}

extension CrisisService {
    /// The service as a JSON object for `safegate respond --json`:
    /// `{"id", "kind", "name", "channels": [{"type", "number", "dial", "keyword", "url", "address"}],
    /// "always_open", "hours", "languages", "source", "verified_on"}`.
    public func json(in language: Language) -> JSONText.Value {
        var object = JSONText.Object()
        object["id"] = .string(id)
        object["kind"] = .string(kind.rawValue)
        object["name"] = .string(displayName(in: language))
        object["channels"] = .array(
            channels.map { channel in
                var item = JSONText.Object()
                item["type"] = .string(channel.kind.rawValue)
                if let display = channel.display { item["number"] = .string(display) }
                if let dial = channel.dial { item["dial"] = .string(dial) }
                if let keyword = channel.keyword { item["keyword"] = .string(keyword) }
                if let url = channel.url { item["url"] = .string(url) }
                if let address = channel.address { item["address"] = .string(address) }
                if let note = channel.note[language.rawValue] ?? channel.note["en"] { item["note"] = .string(note) }
                return .object(item)
            })
        object["always_open"] = .bool(alwaysOpen)
        object["hours"] = .optional(hours[language.rawValue] ?? hours["en"])
        object["languages"] = .array(languages.map { .string($0) })
        if let summary = summary[language.rawValue] ?? summary["en"] { object["summary"] = .string(summary) }
        object["source"] = .string(source)
        object["verified_on"] = .string(verifiedOn)
        return .object(object)
    }
}
