from __future__ import annotations

from workbench.tree.speed import time_tree


def test_time_tree_reports_every_stage():
    figures = time_tree(200)
    assert {"parse_s", "tree_s", "flatten_s", "search_s", "render_s"} <= set(figures)
    assert figures["entries"] == 200 and figures["visible"] > 0
