"""workbench.sessions (being built)."""
