/// The kinds of harm a prompt can ask for; see `POLICY.md` for what each covers.
///
/// Raw values are the strings of the public contract (`CONTRACT.md`).
public enum RefusalType: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case violence
    case illegal
    case hateSpeech
    case selfHarm
    case explicit
    case misinformation
}

/// The label safegate gives a prompt, in order of precedence: `emergency` > `harmful` > `offTopic` > `safe`.
///
/// Encodes as the contract's two fields:
/// ```swift
/// let data = try JSONEncoder().encode(SafetyClassification.harmful(.violence))
/// // {"label":"harmful","type":"violence"}
/// ```
public enum SafetyClassification: Sendable, Equatable, Hashable {
    case safe
    case offTopic
    case harmful(RefusalType)
    case emergency

    /// The label name of the contract: `safe`, `offTopic`, `harmful` or `emergency`.
    public var label: Label {
        switch self {
        case .safe: .safe
        case .offTopic: .offTopic
        case .harmful: .harmful
        case .emergency: .emergency
        }
    }

    /// The harm type when the label is `harmful`, else `nil`.
    public var type: RefusalType? {
        if case .harmful(let type) = self { return type }
        return nil
    }

    /// Builds a classification from the contract's label and type, or `nil` when they do not fit together.
    public init?(label: Label, type: RefusalType?) {
        switch (label, type) {
        case (.safe, nil): self = .safe
        case (.offTopic, nil): self = .offTopic
        case (.emergency, nil): self = .emergency
        case (.harmful, let type?): self = .harmful(type)
        default: return nil
        }
    }

    /// Precedence per POLICY.md: the larger value wins when several rules fire.
    public var precedence: Int { label.precedence }

    /// The label alone, as the contract spells it.
    public enum Label: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
        case safe
        case offTopic
        case harmful
        case emergency

        /// `emergency` (3) > `harmful` (2) > `offTopic` (1) > `safe` (0).
        public var precedence: Int {
            switch self {
            case .safe: 0
            case .offTopic: 1
            case .harmful: 2
            case .emergency: 3
            }
        }
    }
}

extension SafetyClassification: Codable {
    private enum CodingKeys: String, CodingKey { case label, type }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let label = try container.decode(Label.self, forKey: .label)
        let type = try container.decodeIfPresent(RefusalType.self, forKey: .type)
        guard let value = SafetyClassification(label: label, type: type) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "label \(label.rawValue) does not take type \(type?.rawValue ?? "null")")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(type, forKey: .type)
    }
}

/// The language of a prompt, as far as safegate can tell.
public enum Language: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    case en
    case tr
    /// Undetermined: too short, or no evidence either way.
    case und
}
