"""Derivations of the bundled tables, cached on disk from one process to the next.

Reading HGNC, MONDO and MeSH and deriving what grounding needs from them (which diseases and
genes an abbreviation may stand for, which gene an old symbol names, the outside vocabulary)
costs about a second in every process, and ``kgrecall ground`` of a one-page report is meant
to cost under three in all. So each derivation is pickled once under the workspace, in
``HOME/derived/NAME-KEY.pickle``, where KEY hashes the tables it reads (size and modification
time) and the modules whose code derives it (their bytes): a changed table or rule derives
anew, and older files of the same NAME are removed then.

The files are the workspace owner's own, read by the code that wrote them (a pickle runs code
when loaded: point ``KGRECALL_HOME`` only at a folder you trust). An unreadable or damaged file
is derived anew; a workspace that cannot be written only costs the time saved.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from kgrecall.kg.persistence import atomic_write_bytes
from kgrecall.kg.workspace import default_home

__all__ = ["DERIVED_DIR", "cached_derivation", "derivation_path"]

log = logging.getLogger(__name__)

#: The workspace folder of the cached derivations.
DERIVED_DIR = "derived"
#: Bump when the file layout changes (it is part of every key).
_LAYOUT = b"kgrecall-derived/1"

T = TypeVar("T")


def derivation_path(
    name: str,
    *,
    sources: Sequence[Path],
    code: Sequence[Path],
    home: Path | None = None,
    salt: Sequence[str] = (),
) -> Path:
    """Where the derivation ``name`` of ``sources`` by ``code`` is cached; ``salt``: more of
    what the derivation depends on (a graph's content hash, its settings)."""
    digest = hashlib.sha256(_LAYOUT)
    for part in salt:
        digest.update(f"{part}\0".encode())
    for source in sources:
        status = source.stat()
        digest.update(f"{source.name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    for module in code:
        digest.update(module.read_bytes())
    root = home if home is not None else default_home()
    return root / DERIVED_DIR / f"{name}-{digest.hexdigest()[:16]}.pickle"


def cached_derivation(
    name: str,
    derive: Callable[[], T],
    *,
    sources: Sequence[Path],
    code: Sequence[Path],
    home: Path | None = None,
    salt: Sequence[str] = (),
    keep: int = 1,
) -> T:
    """``derive()``, read from the workspace when this very derivation was saved there, else
    derived and saved (atomically). Of the files of ``name``, the ``keep`` used last stay
    (reading one counts as a use); older ones are removed when a new one is saved."""
    if keep < 1:
        raise ValueError(f"keep must be ≥ 1, got {keep}")
    path = derivation_path(name, sources=sources, code=code, home=home, salt=salt)
    try:
        with path.open("rb") as handle:
            value: T = pickle.load(handle)
        if keep > 1:
            os.utime(path)  # the least recently used files go first
        return value
    except FileNotFoundError:
        pass
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as error:
        log.warning("%s: unreadable derivation (%s); deriving it anew", path, error)
    value = derive()
    try:
        atomic_write_bytes(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        others = [older for older in path.parent.glob(f"{name}-*.pickle") if older != path]
        others.sort(key=lambda older: older.stat().st_mtime_ns, reverse=True)
        for older in others[keep - 1 :]:
            older.unlink(missing_ok=True)
    except OSError as error:
        log.info("%s: derivation not saved (%s)", path, error)
    return value
