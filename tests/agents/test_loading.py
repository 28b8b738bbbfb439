"""QueryService's loader and response bounds: one build per KG in one loader thread, unknown
names cost nothing, at most ``max_loaded_kgs`` KGs stay in memory (least recently used
unloaded), and evidence per response is capped."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from kgrecall.agents import QueryService
from kgrecall.agents import service as service_module
from kgrecall.errors import KGRecallError
from kgrecall.kg import KGError, Workspace
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.kg_indexes import INDEX_FOLDER, write_indexes

WITH_PARKINSONISM = {
    "op": "project",
    "relation": "has_phenotype",
    "inverse": True,
    "input": {"op": "entity", "id": "HP:0001300"},
}

#: The rule model loads in well under a second (ULTRA takes seconds): loading is what is
#: tested here, not the model.
CHEAP: dict[str, Any] = {"use_env_llm": False, "progress": False, "model": "rules"}


@pytest.fixture(scope="module")
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with three small KGs (fast to load)."""
    home = tmp_path_factory.mktemp("three-kgs")
    nations = build_store([load_pykeen_dataset("nations")], name="nations")
    for name in ("a", "b", "c"):
        Workspace(home).save(nations, name)
    return home


def test_least_recently_used_kg_is_unloaded(small_home: Path) -> None:
    service = QueryService(small_home, **CHEAP, max_loaded_kgs=2)
    first = service.resources("a")
    service.resources("b")
    assert service.resources("a") is first  # used again: now the most recent
    service.resources("c")
    assert service.loaded() == ["a", "c"]  # b was the least recently used
    assert service.resources("b") is not None and service.loaded() == ["c", "b"]
    assert service.resources("c").store.number_of_nodes() == 14


def test_concurrent_callers_share_one_build(
    small_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = QueryService(small_home, **CHEAP)
    builds: list[str] = []
    release = threading.Event()
    original = service._load

    def counted(kg: str) -> object:
        builds.append(kg)
        release.wait(10)
        return original(kg)

    monkeypatch.setattr(service, "_load", counted)
    futures = [service.load("a") for _ in range(5)]
    assert len({id(future) for future in futures}) == 1 and not futures[0].done()
    release.set()
    with ThreadPoolExecutor(4) as pool:
        loaded = list(pool.map(lambda _: service.resources("a"), range(8)))
    assert builds == ["a"] and all(item is loaded[0] for item in loaded)


def test_unknown_names_are_refused_before_any_state(small_home: Path) -> None:
    service = QueryService(small_home, **CHEAP)
    for name in [f"missing-{i}" for i in range(1000)] + ["../a", "a\n", "x" * 300]:
        with pytest.raises(KGRecallError, match=r"no KG named|invalid KG name"):
            service.load(name)
    assert service.loaded() == [] and service._loads == {}


def test_a_failed_load_is_retried(small_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    service = QueryService(small_home, **CHEAP)
    original = service._load
    calls: list[str] = []

    def flaky(kg: str) -> object:
        calls.append(kg)
        if len(calls) == 1:
            raise KGError("disk hiccup")
        return original(kg)

    monkeypatch.setattr(service, "_load", flaky)
    with pytest.raises(KGError, match="disk hiccup"):
        service.resources("b")
    assert service.resources("b").store.number_of_nodes() == 14 and calls == ["b", "b"]


def test_max_loaded_kgs_must_be_positive(small_home: Path) -> None:
    with pytest.raises(KGError, match="max_loaded_kgs must be at least 1"):
        QueryService(small_home, use_env_llm=False, max_loaded_kgs=0)


def test_evidence_past_the_response_budget_is_left_out_and_said(
    service: QueryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deep chain once made a 26.6 MB response (a full evidence path per answer); evidence
    now stops at MAX_EVIDENCE_TRIPLES per response and the response says so."""
    full = service.query(WITH_PARKINSONISM, max_results=50)
    assert len(full.answers) > 3 and not full.evidence_truncated
    assert all(answer.evidence for answer in full.answers)
    monkeypatch.setattr(service_module, "MAX_EVIDENCE_TRIPLES", 3)
    capped = service.query(WITH_PARKINSONISM, max_results=50)
    assert capped.evidence_truncated
    assert [a.id for a in capped.answers] == [a.id for a in full.answers]  # answers all kept
    assert sum(len(answer.evidence) for answer in capped.answers) <= 3
    assert capped.answers[0].evidence == full.answers[0].evidence


LAZY_PROBE = """
import sys
from kgrecall.agents import QueryService

heavy = ("torch", "kgrecall.tools.minilm", "sentence_transformers", "bm25s", "scipy.stats")
service = QueryService(sys.argv[1], use_env_llm=False, progress=False)
edge = next(iter(service.resources("a").store.edges()))
tree = {"op": "project", "relation": edge.relation, "input": {"op": "entity", "id": edge.head}}
answers = service.query(tree, kg="a", level="fast").answers
print(edge.tail in {answer.id for answer in answers})
print(",".join(m for m in heavy if m in sys.modules))
service.resources("a").warm()
print(",".join(m for m in heavy if m in sys.modules))
print(service.resources("a").retriever.predictor is not None)
"""


def test_the_fast_level_loads_no_model_and_warm_loads_them(small_home: Path) -> None:
    """Retrieval only needs no completion model, no sentence embedder, no BM25 index: a
    command asking at the fast level imports none of them (torch alone costs seconds);
    ``warm`` (a server's start) builds them all."""
    workspace = Workspace(small_home)
    write_indexes(workspace.load("a"), workspace.kg_dir("a") / INDEX_FOLDER, progress=False)
    run = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE, str(small_home)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert run.returncode == 0, run.stderr
    found, before, after, bound = run.stdout.strip().splitlines()[-4:]
    assert found == "True"
    assert before == ""
    assert {"torch", "kgrecall.tools.minilm", "bm25s"} <= set(after.split(","))
    assert "sentence_transformers" not in after  # the embedder runs without it (3.5 s import)
    assert bound == "True"


def test_embedding_a_few_texts_imports_no_torch() -> None:
    """A query's mentions (a fuzzy lookup) are embedded in numpy: torch, two seconds to import,
    is loaded only for batches."""
    code = (
        "import sys; from kgrecall.tools.vector import embed; "
        "print(embed(['chorea', 'Huntington disease']).shape, 'torch' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "(2, 384) False"


def test_training_saves_the_model_and_a_loaded_kg_serves_it(small_home: Path) -> None:
    from kgrecall.tools.linkpred import TrainingConfig

    service = QueryService(small_home, use_env_llm=False, progress=False, model="DistMult")
    assert service.resources("b").retriever.predictor is None  # nothing trained yet
    config = TrainingConfig(model="DistMult", embedding_dim=8, max_epochs=2, eval_every=1)
    trained = service.train("b", config=config)
    assert trained.path is not None and trained.path.is_file() and trained.before is None
    served = service.resources("b").retriever.predictor
    assert served is not None and served.identifier == trained.model.identifier
    with pytest.raises(KGError, match="names 'RotatE', the service serves 'DistMult'"):
        service.train("b", config=TrainingConfig(model="RotatE"))
    rules = QueryService(small_home, use_env_llm=False, progress=False, model="rules")
    assert rules.train("b").model is None  # mined when loaded: nothing to train
