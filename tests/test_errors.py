"""The error taxonomy: every error kgrecall raises on purpose has a kind with an HTTP status,
and the kinds are told apart by class, never by message."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import kgrecall
from kgrecall.agents.planner import PlanningError
from kgrecall.calibration.risk import crc_index, ltt_index
from kgrecall.calibration.store import CalibrationStoreError
from kgrecall.errors import (
    CalibrationInfeasibleError,
    DeadlineExceededError,
    InvalidRequestError,
    KGRecallError,
    NotFoundError,
    http_status,
)
from kgrecall.kg import KGError, UnknownEntityError, Workspace
from kgrecall.kg.errors import KGNotFoundError
from kgrecall.llm import LLMError
from kgrecall.tools.linkpred import LinkPredictorError


def _all_subclasses(root: type) -> set[type]:
    found: set[type] = set()
    stack = [root]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    return found


def test_every_error_class_of_the_package_has_a_status() -> None:
    for module in pkgutil.walk_packages(kgrecall.__path__, "kgrecall."):
        if not module.name.endswith("__main__"):  # importing it runs the CLI
            importlib.import_module(module.name)
    classes = {c for c in _all_subclasses(KGRecallError) if c.__module__.startswith("kgrecall")}
    assert len(classes) >= 15
    unmapped = [c.__qualname__ for c in classes if http_status(c.__new__(c)) == 500]
    assert unmapped == []


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (KGError("field 'x': bad"), 400),
        (LinkPredictorError("no test triples"), 400),
        (UnknownEntityError("NCBIGene:0", []), 404),
        (KGNotFoundError("nope", "no KG named 'nope'; known KGs: a, b"), 404),
        (NotFoundError("no logged query 'q'"), 404),
        (PlanningError("no relation found"), 422),
        (CalibrationInfeasibleError("too few queries"), 422),
        (LLMError("the endpoint timed out"), 502),
        (CalibrationStoreError("/srv/calibrations.sqlite", "locked"), 503),
        (DeadlineExceededError("took longer than its limit"), 504),
    ],
)
def test_each_kind_maps_to_its_status(error: KGRecallError, status: int) -> None:
    assert http_status(error) == status


def test_errors_keep_the_builtin_bases_callers_catch() -> None:
    assert issubclass(InvalidRequestError, ValueError)
    assert issubclass(UnknownEntityError, KeyError)
    assert issubclass(DeadlineExceededError, TimeoutError)
    assert not issubclass(NotFoundError, ValueError)  # a missing thing is not a bad value
    assert not issubclass(LLMError, ValueError)


def test_a_missing_kg_names_the_known_ones_locally_but_not_remotely(tmp_path: object) -> None:
    with pytest.raises(KGNotFoundError) as raised:
        Workspace(tmp_path).load("absent")  # type: ignore[arg-type]
    assert "known KGs" in str(raised.value)
    public = raised.value.public_message()
    assert "absent" in public and "known KGs" not in public and str(tmp_path) not in public


def test_infeasible_risk_control_is_its_own_kind() -> None:
    always_missed = np.ones((5, 3))  # no grid point ever reaches zero loss
    with pytest.raises(CalibrationInfeasibleError, match="CRC cannot reach"):
        crc_index(always_missed, 0.1)
    with pytest.raises(CalibrationInfeasibleError, match="certifies no grid point"):
        ltt_index(always_missed, 0.1, 0.1)
    with pytest.raises(InvalidRequestError, match="alpha must be in"):  # a bad argument
        crc_index(always_missed, 1.5)
