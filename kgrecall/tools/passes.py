"""The thread that runs the process's torch inference (see :class:`PassThread`).

It imports no torch itself: naming it never loads the heavy libraries.
"""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from kgrecall.kg.deadline import is_low_priority

__all__ = ["PASSES", "PassThread"]

_Result = TypeVar("_Result")


class PassThread:
    """The one thread that runs the process's torch inference, normal work before paced work.

    Two reasons to keep torch work on one thread:

    - **Memory.** A ULTRA pass holds message tensors over every edge (tens of MB on the demo
      KG). Run from many request threads, each thread's malloc arena keeps its own high-water
      mark (a server's RSS grew 0.72 → 1.3 GB over 100 questions four at a time; 0.9 GB with
      one pass thread), and on a CPU concurrent passes share the same cores anyway.
    - **OpenMP teams.** Every thread that runs a parallel torch operator gets its own OpenMP
      team; with more team threads than cores, libgomp stops spinning and each of a pass's
      ~1,000 parallel regions waits for a sleeping thread. A demo-KG pass took 64–70 ms on this
      thread after one torch operator on another, 25–34 ms with none (UMLS: 10.9 → 3.9 ms).
      So ULTRA's graph construction and the sentence embeddings run here as well.

    Work queued from inside
    :func:`~kgrecall.kg.deadline.low_priority` (a server's heavy lane) waits for the others.
    """

    def __init__(self) -> None:
        self._queue: queue.PriorityQueue[tuple[int, int, Callable[[], Any], Future[Any]]] = (
            queue.PriorityQueue()
        )
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def run(self, work: Callable[[], _Result]) -> _Result:
        """Run ``work`` on the pass thread and wait for its result (or exception)."""
        if threading.current_thread() is self._thread:
            return work()
        future: Future[_Result] = Future()
        self._queue.put((int(is_low_priority()), next(self._order), work, future))
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._serve, name="kgrecall-torch", daemon=True
                )
                self._thread.start()
        return future.result()

    def _serve(self) -> None:
        while True:
            _, _, work, future = self._queue.get()
            try:
                future.set_result(work())
            except BaseException as error:  # handed to the waiting caller
                future.set_exception(error)


PASSES = PassThread()
