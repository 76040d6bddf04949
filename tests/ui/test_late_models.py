"""A layout whose children join late makes the browser answer their arrival (see ui/late_models.py)."""

from __future__ import annotations

import panel as pn
from bokeh.document import Document

from workbench.ui.late_models import acknowledge_joins


def test_the_layouts_children_change_runs_the_answer_that_sets_its_tags():
    holder = acknowledge_joins(pn.Column())
    model = holder.get_root(Document())
    callbacks = model.js_property_callbacks.get("change:children", [])
    assert len(callbacks) == 1
    assert "source.tags" in callbacks[0].code
    assert "source" in callbacks[0].args and callbacks[0].args["source"] is model


def test_a_plain_column_has_no_answer():
    model = pn.Column().get_root(Document())
    assert not model.js_property_callbacks.get("change:children")
