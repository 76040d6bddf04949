"""TTSR Workbench: see, step and debug the Time Traveling Stream Rules of pi / oh-my-pi agents."""

from workbench.errors import WorkbenchError

__all__ = ["WorkbenchError", "__version__"]
__version__ = "0.1.0"
