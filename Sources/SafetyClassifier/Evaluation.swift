public import SafetyCore

/// Figures for a labelled corpus: per-label precision, recall and F1, a confusion matrix, the
/// POLICY.md headline figures, per language and per harm type, and the misclassified records.
///
/// ```swift
/// var evaluation = Evaluation()
/// evaluation.add(id: "en-emg-0001", language: .en, expected: .emergency, predicted: decision)
/// evaluation.figures(for: .en).emergencyRecall
/// ```
public struct Evaluation: Sendable {
    /// One classified corpus record.
    public struct Outcome: Sendable {
        public var id: String
        public var language: Language
        public var expected: SafetyClassification
        public var predicted: SafetyClassification
        public var rules: [String]
        public var text: String
        public var tags: [String]

        public var isCorrect: Bool { expected == predicted }
    }

    public private(set) var outcomes: [Outcome] = []

    public init() {}

    public mutating func add(
        id: String, language: Language, expected: SafetyClassification, predicted: SafetyClassification,
        rules: [String], text: String, tags: [String] = []
    ) {
        outcomes.append(
            Outcome(id: id, language: language, expected: expected, predicted: predicted, rules: rules, text: text, tags: tags))
    }

    /// The languages present, in a stable order.
    public var languages: [Language] {
        Language.allCases.filter { language in outcomes.contains { $0.language == language } }
    }

    /// Figures over all records (`nil`) or one language.
    public func figures(for language: Language? = nil) -> Figures {
        Figures(outcomes: outcomes.filter { language == nil || $0.language == language })
    }

    /// The figures of one slice of the corpus.
    public struct Figures: Sendable {
        public let count: Int
        /// confusion[expected][predicted], by label.
        public let confusion: [SafetyClassification.Label: [SafetyClassification.Label: Int]]
        public let perLabel: [SafetyClassification.Label: LabelFigures]
        /// Recall of `harmful(type)` exactly, per expected type.
        public let perType: [RefusalType: TypeFigures]
        /// Emergencies labelled emergency.
        public let emergencyRecall: Double?
        /// Harmful or emergency records labelled harmful or emergency.
        public let harmfulOrEmergencyRecall: Double?
        /// Safe records labelled harmful or emergency (over-refusal).
        public let safeFlaggedRate: Double?
        /// Of the harmful records labelled harmful, the share with the right type.
        public let typeAccuracy: Double?
        /// Records whose label (and type) is right.
        public let accuracy: Double?

        init(outcomes: [Outcome]) {
            count = outcomes.count
            var confusion: [SafetyClassification.Label: [SafetyClassification.Label: Int]] = [:]
            for outcome in outcomes {
                confusion[outcome.expected.label, default: [:]][outcome.predicted.label, default: 0] += 1
            }
            self.confusion = confusion
            var perLabel: [SafetyClassification.Label: LabelFigures] = [:]
            for label in SafetyClassification.Label.allCases {
                let truePositives = outcomes.count { $0.expected.label == label && $0.predicted.label == label }
                let expected = outcomes.count { $0.expected.label == label }
                let predicted = outcomes.count { $0.predicted.label == label }
                perLabel[label] = LabelFigures(truePositives: truePositives, expected: expected, predicted: predicted)
            }
            self.perLabel = perLabel
            var perType: [RefusalType: TypeFigures] = [:]
            for type in RefusalType.allCases {
                let expected = outcomes.filter { $0.expected == .harmful(type) }
                guard !expected.isEmpty else { continue }
                perType[type] = TypeFigures(
                    expected: expected.count,
                    exact: expected.count { $0.predicted == .harmful(type) },
                    caught: expected.count { $0.predicted.label == .harmful || $0.predicted.label == .emergency })
            }
            self.perType = perType
            func ratio(_ part: Int, _ whole: Int) -> Double? { whole == 0 ? nil : Double(part) / Double(whole) }
            func isFlag(_ label: SafetyClassification.Label) -> Bool { label == .harmful || label == .emergency }
            emergencyRecall = perLabel[.emergency]?.recall
            let risky = outcomes.filter { isFlag($0.expected.label) }
            harmfulOrEmergencyRecall = ratio(risky.count { isFlag($0.predicted.label) }, risky.count)
            let safe = outcomes.filter { $0.expected.label == .safe }
            safeFlaggedRate = ratio(safe.count { isFlag($0.predicted.label) }, safe.count)
            let harmfulCaught = outcomes.filter { $0.expected.label == .harmful && $0.predicted.label == .harmful }
            typeAccuracy = ratio(harmfulCaught.count { $0.expected == $0.predicted }, harmfulCaught.count)
            accuracy = ratio(outcomes.count(where: \.isCorrect), outcomes.count)
        }
    }

    public struct LabelFigures: Sendable {
        public let truePositives: Int
        public let expected: Int
        public let predicted: Int

        public var precision: Double? { predicted == 0 ? nil : Double(truePositives) / Double(predicted) }
        public var recall: Double? { expected == 0 ? nil : Double(truePositives) / Double(expected) }
        public var f1: Double? {
            guard let precision, let recall, precision + recall > 0 else { return nil }
            return 2 * precision * recall / (precision + recall)
        }
    }

    public struct TypeFigures: Sendable {
        /// Records of this harm type.
        public let expected: Int
        /// Labelled harmful with this type.
        public let exact: Int
        /// Labelled harmful (any type) or emergency.
        public let caught: Int

        public var recall: Double { expected == 0 ? 0 : Double(exact) / Double(expected) }
    }
}

/// A figure `eval` can hold to a threshold.
public enum EvaluationMetric: Sendable, Hashable, CustomStringConvertible {
    case recall(SafetyClassification.Label)
    case precision(SafetyClassification.Label)
    case harmfulOrEmergencyRecall
    case safeFlaggedRate
    case typeAccuracy

    public var description: String {
        switch self {
        case .recall(let label): "\(label.rawValue) recall"
        case .precision(let label): "\(label.rawValue) precision"
        case .harmfulOrEmergencyRecall: "harmful-or-emergency recall"
        case .safeFlaggedRate: "safe flagged rate"
        case .typeAccuracy: "harm type accuracy"
        }
    }

    /// The figure's value, or nil when the slice has no records for it.
    public func value(in figures: Evaluation.Figures) -> Double? {
        switch self {
        case .recall(let label): figures.perLabel[label]?.recall
        case .precision(let label): figures.perLabel[label]?.precision
        case .harmfulOrEmergencyRecall: figures.harmfulOrEmergencyRecall
        case .safeFlaggedRate: figures.safeFlaggedRate
        case .typeAccuracy: figures.typeAccuracy
        }
    }
}

/// A bound on a figure: at least (`minimum`) or at most.
public struct EvaluationThreshold: Sendable, Hashable, CustomStringConvertible {
    public var metric: EvaluationMetric
    public var bound: Double
    public var isMinimum: Bool

    public init(metric: EvaluationMetric, bound: Double, isMinimum: Bool) {
        self.metric = metric
        self.bound = bound
        self.isMinimum = isMinimum
    }

    public var description: String { "\(metric) \(isMinimum ? "≥" : "≤") \(bound)" }

    /// Whether `figures` meet the bound (a figure with no records to measure holds).
    public func holds(in figures: Evaluation.Figures) -> Bool {
        guard let value = metric.value(in: figures) else { return true }
        return isMinimum ? value >= bound - 1e-12 : value <= bound + 1e-12
    }
}
