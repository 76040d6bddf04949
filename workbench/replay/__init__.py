"""workbench.replay (being built)."""
