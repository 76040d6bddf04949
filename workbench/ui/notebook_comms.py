"""In a notebook, the views' widget events are handled on the kernel's main thread.

JupyterLab 4.6 sends comm messages to kernel subshells by default (its `commsOverSubshells` setting,
"one subshell per comm target"), and ipykernel 7 then runs each Panel view's events on a thread of
its own, beside the cells and the other views. Panel and param are not made for that: two threads in
one watcher batch can leave the batch open for good, after which the view takes clicks and never
answers them (the button shows pressed, the kernel is idle, nothing is logged). ipykernel 7 asks each
comm where its messages go (``_reply_subshell_for``); the client comms Panel opens for its views
answer "the main shell", which is where every comm message went before subshells (ipykernel 6). The
views then answer in order with the cells, as the inline work of ``ui/background.py`` assumes.

A kernel without subshell routing (ipykernel < 7, or outside a kernel) is left as it is.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import panel as pn

_lock = threading.Lock()
_installed = False


def _main_shell(data: Any, default: Any) -> None:
    return None  # subshell id None: the kernel's main shell


def route_to_main_shell() -> bool:
    """Route the comm messages of Panel's views to the main shell from now on (once per process).

    True when this kernel routes comms to subshells and the route is now set; False when there is
    nothing to do (no subshell routing in this ipykernel, or the packages are missing).
    """
    global _installed
    with _lock:
        if _installed:
            return True
        try:
            # only in a kernel, and only if the notebook extra is installed: not a dependency of the app
            import pyviz_comms  # type: ignore[import-untyped]
            from ipykernel.comm import Comm as KernelComm
        except ImportError:
            return False
        if not hasattr(KernelComm, "_reply_subshell_for"):
            return False
        opened = pyviz_comms.JupyterCommJS._handle_open

        def handle_open(self: Any, comm: Any, msg: Any) -> None:
            comm._reply_subshell_for = _main_shell  # consulted by the kernel for each comm_msg/comm_close
            opened(self, comm, msg)

        pyviz_comms.JupyterCommJS._handle_open = handle_open
        _installed = True
        return True


def in_kernel() -> bool:
    """This process is a Jupyter kernel (its comms carry the notebook's views)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return getattr(shell, "kernel", None) is not None


def push_edits(pane: Any) -> None:
    """Send what was changed directly on ``pane``'s Bokeh models (a graph's ring, a timeline's data) to
    a notebook's browser. A served page sends such changes itself; a notebook sends only the changes
    Panel makes, so without this they stay in the kernel (Panel's ``push_notebook``; a no-op where
    the pane is not shown in a notebook)."""
    pn.io.push_notebook(pane)
