"""The page around the tabs: a dark header bar, the main area and the help dialog.

Plain Panel layouts, not one of Panel's templates. Measured on the 2-core machine, in loads of the
two pages interleaved (so both saw the machine at the same speed), FastListTemplate cost the first
tree row about 0.1 s of a 1.5 s budget: its FAST design runs an 888 KB web-components module on
every page and styles every widget through it, and the template makes one document root per slot.
The app uses none of what that buys (a sidebar, theme switching, FAST's widget look).
"""

from __future__ import annotations

from typing import Any

import panel as pn
from panel.viewable import Viewer

HEADER_BACKGROUND = "#24292f"
_HEADER_HEIGHT = 62


def header_label(text: str) -> pn.pane.Str:
    """A label on the header bar (white on its dark background)."""
    return pn.pane.Str(text, styles={"color": "white"}, align="center")


class PageFrame(Viewer):
    """A header bar (the title, then ``header``), ``main`` below it, ``dialog`` as the help dialog.

    ``open_dialog()`` shows the dialog; Escape, its close button or a click beside it close it.
    """

    def __init__(self, title: str, header: list[Any], main: list[Any], dialog: list[Any]) -> None:
        super().__init__()
        title_pane = pn.pane.HTML(title, css_classes=["wb-title"], align="center", margin=(0, 18, 0, 8),
                                  styles={"color": "white", "font-size": "24px", "white-space": "nowrap"})
        # the controls as one row centred on the bar (a row's children otherwise sit at its top)
        controls = pn.Row(*header, align="center", margin=0)
        self.header = pn.Row(title_pane, controls, height=_HEADER_HEIGHT, sizing_mode="stretch_width",
                             margin=0, css_classes=["wb-header"],
                             styles={"background": HEADER_BACKGROUND, "padding": "0 8px",
                                     # cut what is too wide, never the session picker's menu below the bar
                                     "overflow-x": "clip", "overflow-y": "visible",
                                     "box-shadow": "0 2px 4px rgba(0, 0, 0, 0.25)",
                                     # above the tabs (a positioned stacking context): the menu overlays them
                                     "position": "relative", "z-index": "10"})
        self.dialog = pn.layout.Modal(*dialog, css_classes=["wb-dialog"])
        self.main = pn.Column(*main, sizing_mode="stretch_both", margin=(8, 15, 0, 15), css_classes=["wb-main"])
        self._layout = pn.Column(self.header, self.main, self.dialog, sizing_mode="stretch_both", margin=0)

    def open_dialog(self) -> None:
        self.dialog.show()

    def __panel__(self) -> pn.Column:
        return self._layout
