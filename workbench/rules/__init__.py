"""Rules: the model and the discovery pipeline (pure; reads rule files only)."""

from workbench.rules.model import INTERRUPT_MODES, Rule, RuleSource

__all__ = ["INTERRUPT_MODES", "Rule", "RuleSource"]
