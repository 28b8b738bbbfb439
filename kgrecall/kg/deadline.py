"""Cooperative deadlines: work that a caller stopped waiting for stops itself.

A thread cannot be killed from outside, so a timed-out request's work would run on to the
end. Instead the caller opens ``with deadline(seconds):`` around the work, and long loops
(claim segmentation, entity extraction, path verification) call :func:`check_deadline`,
which raises :class:`DeadlineExceededError` once the time is up. The deadline lives in a context
variable: set it in the thread that does the work; nested deadlines keep the earlier one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kgrecall.kg.errors import KGError

#: (monotonic time the work must stop at, the limit in seconds as given) or None.
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("kgrecall_deadline", default=None)


class DeadlineExceededError(KGError):
    """The work ran past its caller's time limit and was stopped."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Work inside the block must finish within ``seconds`` (or an enclosing deadline)."""
    stop = time.monotonic() + seconds
    current = _DEADLINE.get()
    token = _DEADLINE.set((stop, seconds) if current is None or stop < current[0] else current)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline() -> None:
    """Raise :class:`DeadlineExceededError` when the current deadline (if any) has passed."""
    current = _DEADLINE.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceededError(f"the work took longer than its limit of {current[1]:g} s")
