public import SafetyCore

extension RefusalGenerator {
    /// The error as the user reads it in `language`, worded for its `context`: title, message,
    /// symbol and the recovery options (the attached ones, else the ones its kind suggests).
    ///
    /// ```swift
    /// let card = refusals.presentation(for: GatewayError.aiUnavailable.in(.afterEmergency), language: .en)
    /// card.message   // "...the crisis contacts above work without it..."
    /// ```
    public func presentation(for error: GatewayError, language: Language) -> ErrorPresentation {
        let catalog = catalog(language)
        let code = error.code
        var values: [String: String] = [:]
        switch error.kind {
        case .invalidInput(let reason):
            values["reason"] = reason
        case .configuration(let file, let line, let reason):
            values["location"] = line.map { catalog.text(.uiFileLine, ["file": file, "line": String($0)]) } ?? file
            values["reason"] = reason
        case .unchecked(.tooLong(_, let limit)):
            values["advice"] = catalog.text(.uncheckedTooLong, ["limit": Self.byteSize(limit)])
        case .unchecked(.searchLimit):
            values["advice"] = catalog.text(.uncheckedSearchLimit)
        default:
            break
        }
        let contextual = CatalogKey.errorMessage(code, in: error.context)
        var message = catalog.text(catalog.has(contextual) ? contextual : .errorMessage(code), values)
        if let retryAfter = error.retryAfter {
            message += " " + catalog.text(.rateLimitedRetryAfter, ["seconds": String(Self.wholeSeconds(retryAfter))])
        }
        let options = Self.effectiveOptions(of: error).map(\.action).map { action in
            var values: [String: String] = [:]
            if case .openSettings(let path) = action { values["path"] = path }
            return ErrorPresentation.Option(
                action: action, label: catalog.text(.recoveryLabel(action.name), values),
                key: catalog.text(.recoveryKey(action.name)))
        }
        return ErrorPresentation(
            code: code, symbol: error.kind.symbol, title: catalog.text(.errorTitle(code)), message: message,
            options: options)
    }

    /// The options an error offers: the attached ones, else those its kind suggests; Dismiss
    /// always among them. Presentations and presenters both use this, so keys and attempts line up.
    static func effectiveOptions(of error: GatewayError) -> [RecoveryOption] {
        var options =
            error.recoveryOptions.isEmpty ? error.suggestedActions.map { RecoveryOption($0) } : error.recoveryOptions
        if !options.contains(where: { $0.action == .dismiss }) { options.append(.dismiss) }
        return options
    }

    /// A byte count as people read it: `256 KB`, `1 MB`, `1.5 KB`, `40 B` (binary units; the
    /// same symbols in every catalog language).
    static func byteSize(_ bytes: Int) -> String {
        for (unit, size) in [("MB", 1 << 20), ("KB", 1 << 10)] where bytes >= size {
            let tenths = (bytes * 10 + size / 2) / size
            return tenths % 10 == 0 ? "\(tenths / 10) \(unit)" : "\(tenths / 10).\(tenths % 10) \(unit)"
        }
        return "\(bytes) B"
    }

    /// `duration` rounded up to whole seconds, at least 1.
    static func wholeSeconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds + (attoseconds > 0 ? 1 : 0))
    }
}
