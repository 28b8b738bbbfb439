"""Cooperative deadlines and pacing: low-priority work pauses at its deadline checks."""

from __future__ import annotations

import time

import pytest

from kgrecall.errors import DeadlineExceededError
from kgrecall.kg import KGError
from kgrecall.kg.deadline import check_deadline, deadline, low_priority


def busy(cpu_seconds: float) -> tuple[float, float]:
    """Spin for ``cpu_seconds`` of this thread's CPU time, checking the deadline as real work
    does; returns (CPU seconds, wall seconds)."""
    wall, cpu = time.monotonic(), time.thread_time()
    while time.thread_time() - cpu < cpu_seconds:
        sum(range(2_000))
        check_deadline()
    return time.thread_time() - cpu, time.monotonic() - wall


def test_paced_work_uses_at_most_its_share_of_the_wall_time() -> None:
    with low_priority(0.5):
        cpu, wall = busy(0.2)
    assert cpu / wall <= 0.6  # pauses of at least the work time; load only lowers the ratio


def test_a_deadline_stops_paced_work_and_bad_shares_are_refused() -> None:
    with pytest.raises(DeadlineExceededError, match=r"limit of 0\.1 s"):  # noqa: SIM117
        with deadline(0.1), low_priority(0.5):
            busy(5.0)
    for share in (0.0, -1.0, 1.5):
        with pytest.raises(KGError, match="share must be in"), low_priority(share):
            pass
