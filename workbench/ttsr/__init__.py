"""workbench.ttsr (being built)."""
