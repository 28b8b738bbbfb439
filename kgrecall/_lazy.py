"""Lazy package exports (PEP 562): a package's names are imported on first use.

``import kgrecall.kg`` used to load the Neo4j driver, bioregistry and torch because each
package's ``__init__`` imported every submodule; a command that only reads a report paid for
all of it (``kgrecall ground`` spent seconds in imports). A package lists where each of its
names lives; ``attach`` gives it the ``__getattr__`` / ``__dir__`` that import the module
holding a name when the name is first read, and caches it. Type checkers read the same names
from the package's ``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["attach"]


def attach(
    package: str, namespace: dict[str, Any], exports: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: ``exports`` maps each public name to
    the module (relative to ``package``, e.g. ``".model"``) that defines it."""

    def get_attribute(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value  # later reads skip this function
        return value

    def list_attributes() -> list[str]:
        return sorted({*namespace, *exports})

    return get_attribute, list_attributes
