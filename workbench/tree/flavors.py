"""The `/tree` selector of every followed version: ``REGISTRY`` and ``flavour(name)``.

``REGISTRY`` holds one ``flavour.TreeFlavour`` object per followed reference version (modules
``omp17``, ``omp18``, ``pi``, ``omp57``), in the order of ``sessions.flavors.FLAVOURS``, the one list
of versions (names, aliases, choices, detection) each object takes its file rules from.
"""

from __future__ import annotations

from workbench.errors import UsageError
from workbench.sessions.flavors import FLAVOR_CHOICES, FLAVOURS
from workbench.tree.flavour import TreeFlavour
from workbench.tree.omp17 import OMP17
from workbench.tree.omp18 import OMP18
from workbench.tree.omp57 import OMP57
from workbench.tree.pi import PI

__all__ = ["REGISTRY", "TreeFlavour", "flavour"]

_OBJECTS = {f.name: f for f in (OMP17, OMP18, PI, OMP57)}
# A version without a selector object fails here, at import, not at the first file read as it.
REGISTRY: tuple[TreeFlavour, ...] = tuple(_OBJECTS[f.name] for f in FLAVOURS)
_BY_NAME: dict[str, TreeFlavour] = {n: f for f in REGISTRY for n in (f.name, *f.session.aliases)}


def flavour(name: str) -> TreeFlavour:
    """The flavour object of a name or alias (``omp17`` → the ``omp`` flavour); not ``auto``."""
    found = _BY_NAME.get(name)
    if found is None:
        raise UsageError(f"unknown tree flavor {name!r} (use {', '.join(FLAVOR_CHOICES)})")
    return found
