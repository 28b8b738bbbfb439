"""Errors of the KG layer: each names what is wrong and where."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kgrecall.errors import InvalidRequestError, NotFoundError


class KGError(InvalidRequestError):
    """Invalid KG content or request (a bad field, an unknown relation or node type)."""


class KGNotFoundError(NotFoundError):
    """No KG of that name in the workspace; the message lists the known ones, the public
    message only the name asked for."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(message)

    def public_message(self) -> str:
        return f"no KG named {self.name!r}; GET /v1/databases lists the KGs served"


class UnknownEntityError(NotFoundError, KeyError):
    """An entity id that the KG does not hold; carries the closest known ids."""

    def __init__(
        self, entity_id: str, suggestions: list[str], names: Mapping[str, str] | None = None
    ) -> None:
        self.entity_id = entity_id
        self.suggestions = suggestions
        labels = [
            f"{s} ({names[s]})" if names and names.get(s) and names[s] != s else s
            for s in suggestions
        ]
        hint = f"; closest matches: {', '.join(labels)}" if suggestions else ""
        super().__init__(f"unknown entity {entity_id!r}{hint}")

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class KGLoadError(KGError):
    """A file that cannot be loaded, located by path, line (1-based) and field where known."""

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field {field!r}: " if field else ""
        super().__init__(f"{where}: {what}{message}")


class KGFieldError(KGError):
    """One field of a node or edge record is invalid."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"field {field!r}: {message}")
