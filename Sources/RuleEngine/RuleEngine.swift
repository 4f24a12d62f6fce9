// The RuleEngine module.
