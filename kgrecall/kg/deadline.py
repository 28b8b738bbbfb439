"""Cooperative deadlines: work that a caller stopped waiting for stops itself.

A thread cannot be killed from outside, so a timed-out request's work would run on to the
end. Instead the caller opens ``with deadline(seconds):`` around the work, and long loops
(claim segmentation, entity extraction, path verification) call :func:`check_deadline`,
which raises :class:`DeadlineExceededError` once the time is up. The deadline lives in a context
variable: set it in the thread that does the work; nested deadlines keep the earlier one.

The same checks pace low-priority work: inside ``with low_priority(share):`` each check after
10 ms of work sleeps long enough that the work takes at most ``share`` of the wall time, so
the GIL and the cores go to other requests in between.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kgrecall.errors import DeadlineExceededError
from kgrecall.kg.errors import KGError

#: (monotonic time the work must stop at, the limit in seconds as given) or None.
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("kgrecall_deadline", default=None)
#: Work this long between two checks is followed by a pause (under :func:`low_priority`).
_PACE_SLICE_S = 0.01


class _Pace:
    """Pauses that keep the paced work at ``share`` of the wall time."""

    def __init__(self, share: float) -> None:
        self.share = share
        self.since = time.monotonic()

    def tick(self) -> None:
        worked = time.monotonic() - self.since
        if worked >= _PACE_SLICE_S:
            time.sleep(worked * (1.0 / self.share - 1.0))
            self.since = time.monotonic()


_PACE: ContextVar[_Pace | None] = ContextVar("kgrecall_pace", default=None)


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


@contextmanager
def low_priority(share: float) -> Iterator[None]:
    """Work inside the block pauses at its deadline checks to use at most ``share`` (0–1] of
    the wall time."""
    if not 0.0 < share <= 1.0:
        raise KGError(f"share must be in (0, 1], got {share}")
    token = _PACE.set(_Pace(share) if share < 1.0 else None)
    try:
        yield
    finally:
        _PACE.reset(token)


def is_low_priority() -> bool:
    """Whether the current work runs inside :func:`low_priority` (with a share below 1)."""
    return _PACE.get() is not None


def check_deadline() -> None:
    """Raise :class:`DeadlineExceededError` when the current deadline (if any) has passed;
    pause first when the work is paced (:func:`low_priority`)."""
    pace = _PACE.get()
    if pace is not None:
        pace.tick()
    current = _DEADLINE.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceededError(f"the work took longer than its limit of {current[1]:g} s")
