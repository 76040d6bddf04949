"""Views that join a page after its first document, acknowledged by the browser as soon as they arrive.

Why (issue 27, "reference already known 'pNNNN'"): BokehJS marks every model that reaches the browser
in a server patch as *new* and keeps it so until the browser sends its next message; that message then
carries the model's whole definition instead of a reference. When that next message is an event of
the late model itself (the first click in the Problems table, which joins the page when its tab is
opened), the server receives a full copy of a model it already has and warns
``BokehUserWarning: reference already known``. The warning is the symptom; the cause is that nothing
was said between the table's arrival and its first event.

``acknowledge_joins(layout)`` makes the browser say something at once: when ``layout``'s children
change, a small callback sets the layout's ``tags`` (Bokeh's free-form list, unused by Panel for
layouts) to a counter. That message names only the layout, which both sides knew before; sending it
ends the browser's *new* marking, so the late models' first events refer to them by id.
"""

from __future__ import annotations

from typing import Any

# runs in the browser while the patch that changed the children is applied (the new models are
# already in the document then); a changed value, so that Bokeh sends it
_ANSWER = "source.tags = ['wb-joined', (source.tags.length == 2 ? Number(source.tags[1]) : 0) + 1]"


def acknowledge_joins(layout: Any) -> Any:
    """Have the browser answer every change of ``layout``'s objects at once (see the module's doc)."""
    layout.jscallback(children=_ANSWER)  # the Bokeh name of Panel's `objects`
    return layout
