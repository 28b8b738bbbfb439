"""Asynchronous calibration jobs: one worker thread, status and progress by job id.

Calibration is CPU-bound and long (it trains link predictors), so jobs run one at a time on
a background thread, in order of submission. The thread starts with the app (its lifespan:
:meth:`CalibrationJobs.start`) or with the first job, never when the app is made, and stops
when the app shuts down (:meth:`CalibrationJobs.stop`). A job's records reach the
CalibrationStore in one transaction at its end: a job that fails, or a process killed
mid-job, leaves the previous calibration in use.
"""

from __future__ import annotations

import queue
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Literal

from kgrecall.agents import QueryService
from kgrecall.agents.service import Recalibration
from kgrecall.kg import KGError

JobStatus = Literal["queued", "running", "done", "failed"]


@dataclass(slots=True)
class CalibrationRequest:
    """What one job calibrates, on which KG, and why (shown first in its progress: e.g. the
    ingestion that asked for it)."""

    database: str
    plan: Recalibration
    reason: str | None = None


@dataclass(slots=True)
class Job:
    """A calibration job's state, as reported to clients."""

    id: str
    request: CalibrationRequest
    status: JobStatus = "queued"
    submitted: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    progress: list[str] = field(default_factory=list)
    result: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None


class CalibrationJobs:
    """Queue, run and report calibration jobs for one QueryService."""

    def __init__(self, service: QueryService) -> None:
        self.service = service
        self._jobs: dict[str, Job] = {}
        #: jobs in order; None tells the worker to stop
        self._queue: queue.Queue[Job | None] = queue.Queue()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def start(self) -> None:
        """Start the worker thread (once; a stopped one is started anew)."""
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._run_forever, daemon=True, name="calibration"
                )
                self._worker.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Let the worker finish the job it runs, then end it (queued jobs stay queued for a
        later :meth:`start`); waits at most ``timeout_s`` — the thread is a daemon, so a long
        job never holds the process open."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None and worker.is_alive():
            self._queue.put(None)
            worker.join(timeout_s)

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        with self._lock:
            return self._worker is not None and self._worker.is_alive()

    def submit(self, request: CalibrationRequest) -> Job:
        self.start()
        job = Job(id=uuid.uuid4().hex, request=request)
        with self._lock:
            self._jobs[job.id] = job
        self._queue.put(job)
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise KeyError(job_id)
        return job

    def wait(self, job_id: str, timeout_s: float) -> Job:
        """Block until the job ends or ``timeout_s`` passes (for tests and scripts)."""
        deadline = time.monotonic() + timeout_s
        job = self.get(job_id)
        while job.status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
        return job

    def _run_forever(self) -> None:
        while (job := self._queue.get()) is not None:
            self._run(job)

    def _run(self, job: Job) -> None:
        job.status, job.started = "running", time.time()
        request = job.request
        if request.reason:
            job.progress.append(request.reason)
        try:
            records, location = self.service.recalibrate(
                request.database, request.plan, say=job.progress.append
            )
            job.result = [
                {
                    "topology": r.topology,
                    "recall_target": r.target_level,
                    "method": r.method,
                    "estimated_recall": r.pooled.estimated_recall,
                    "mean_set_size": r.pooled.mean_set_size,
                    "n": r.pooled.n,
                    "calibration_id": r.id,
                }
                for r in records
            ]
            job.progress.append(f"saved {len(records)} calibrations to {location}")
            job.status = "done"
        except KGError as error:
            job.status, job.error = "failed", str(error)
        except Exception as error:  # a job must never take the worker down
            job.status, job.error = "failed", f"internal error ({type(error).__name__})"
        finally:
            job.finished = time.time()
