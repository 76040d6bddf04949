"""The page around the tabs: a dark header bar, the main area and the help dialog.

Plain Panel layouts, not one of Panel's templates. Measured on the 2-core machine, in loads of the
two pages interleaved (so both saw the machine at the same speed), FastListTemplate cost the first
tree row about 0.1 s of a 1.5 s budget: its FAST design runs an 888 KB web-components module on
every page and styles every widget through it, and the template makes one document root per slot.
The app uses none of what that buys (a sidebar, theme switching, FAST's widget look).
"""

from __future__ import annotations

import html
from typing import Any

import panel as pn
from panel.viewable import Viewer

HEADER_BACKGROUND = "#24292f"
_HEADER_HEIGHT = 62  # one line of controls; a window too narrow for them wraps to a second line
# Below this window width the title is the short "TTSR": the whole header then fits one line at a
# notebook's width (about 970 px), where the long title would push Help, Export and Copy link off it.
SHORT_TITLE_BELOW = 1100
_TITLE_CSS = f"""
:host {{ color: white; font-size: 24px; white-space: nowrap; }}
.wb-title-short {{ display: none; }}
@media (max-width: {SHORT_TITLE_BELOW - 1}px) {{ .wb-title-long {{ display: none; }} .wb-title-short {{ display: inline; }} }}
"""


def header_label(text: str) -> pn.pane.Str:
    """A label on the header bar (white on its dark background)."""
    return pn.pane.Str(text, styles={"color": "white"}, align="center")


def header_group(*objects: Any, actions: bool = False) -> pn.Row:
    """Controls that stay together on one line of the header (a label and its control): the header
    wraps between groups, never inside one. The ``actions`` group sits at the bar's right end (on
    the second line too, when the window wraps it there)."""
    styles = {"margin-left": "auto"} if actions else {}
    return pn.Row(*objects, align="center", margin=0, css_classes=["wb-header-group"], styles=styles)


class PageFrame(Viewer):
    """A header bar (the title, then ``header``), ``main`` below it, ``dialog`` as the help dialog.

    The header's items sit on one line while the window is wide enough; a narrower one wraps them
    onto a second line (each item whole: see ``header_group``), so nothing is cut or overlaps.
    ``short_title`` replaces the title below ``SHORT_TITLE_BELOW`` px.
    ``open_dialog()`` shows the dialog; Escape, its close button or a click beside it close it.
    """

    def __init__(self, title: str, header: list[Any], main: list[Any], dialog: list[Any],
                 short_title: str = "") -> None:
        super().__init__()
        long, short = html.escape(title), html.escape(short_title or title)
        self.title = pn.pane.HTML(f"<span class='wb-title-long'>{long}</span>"
                                  f"<span class='wb-title-short' title='{long}'>{short}</span>",
                                  css_classes=["wb-title"], align="center", margin=(0, 14, 0, 8),
                                  stylesheets=[_TITLE_CSS])
        self.header = pn.FlexBox(self.title, *header, flex_wrap="wrap", align_items="center", align_content="center",
                                 sizing_mode="stretch_width", margin=0, css_classes=["wb-header"],
                                 styles={"background": HEADER_BACKGROUND, "padding": "2px 8px",
                                         "min-height": f"{_HEADER_HEIGHT}px", "row-gap": "0",
                                         "box-shadow": "0 2px 4px rgba(0, 0, 0, 0.25)",
                                         # the session picker's menu hangs below the bar, over the tabs:
                                         # the bar is a positioned stacking context above them
                                         "overflow": "visible", "position": "relative", "z-index": "10"})
        self.dialog = pn.layout.Modal(*dialog, css_classes=["wb-dialog"])
        self.main = pn.Column(*main, sizing_mode="stretch_both", margin=(8, 15, 0, 15), css_classes=["wb-main"])
        self._layout = pn.Column(self.header, self.main, self.dialog, sizing_mode="stretch_both", margin=0)

    def open_dialog(self) -> None:
        self.dialog.show()

    def __panel__(self) -> pn.Column:
        return self._layout
