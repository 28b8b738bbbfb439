"""The completion-model registry and the contract every registered model must honour.

As in PyKEEN's model test template, each name of :func:`model_names` goes through the same
checks: it loads (zero-shot, or after a short training), binds to a graph, projects fuzzy sets
to probabilities of the right shape and range, survives save/load unchanged and refits on a
reduced graph without keeping the old graph's version.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgrecall.kg import NetworkXStore
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.linkpred import (
    CompletionModel,
    LinkPredictor,
    LinkPredictorError,
    TrainingConfig,
    UltraCompletion,
)
from kgrecall.tools.linkpred.registry import (
    DEFAULT_MODEL,
    canonical_name,
    load_completion_model,
    load_like,
    model_names,
    needs_training,
    pretrained,
    refit,
)


@pytest.fixture(scope="module")
def nations() -> NetworkXStore:
    return build_store([load_pykeen_dataset("nations")], name="nations")


def ready(name: str, store: NetworkXStore, tmp_path: Path) -> CompletionModel:
    """The registered model ``name`` usable on ``store`` (KG embeddings: 2 quick epochs)."""
    path = tmp_path / f"{canonical_name(name).lower()}.pt"
    if needs_training(name):
        assert load_completion_model(name, path, store) is None  # nothing trained yet
        config = TrainingConfig(model=name, embedding_dim=16, max_epochs=2, eval_every=1)
        LinkPredictor.train(store, config, progress=False).save(path)
    model = load_completion_model(name, path, store)
    assert model is not None
    return model


@pytest.mark.parametrize("name", model_names())
def test_every_registered_model_honours_the_contract(
    name: str, nations: NetworkXStore, tmp_path: Path
) -> None:
    model = ready(name, nations, tmp_path)
    bound = model.bind(nations)
    n = len(bound.entity_ids)
    assert bound.entity_ids == sorted(node.id for node in nations.nodes())
    relation = min(edge.relation for edge in nations.edges())
    assert bound.knows(relation) and not bound.knows("no_such_relation")
    weights = np.zeros(n)
    weights[[0, 3]] = 1.0
    for inverse in (False, True):
        scores = bound.project(weights, relation, inverse=inverse)
        assert scores.shape == (n,) and scores.dtype == np.float32
        assert np.isfinite(scores).all() and scores.min() >= 0 and scores.max() <= 1
        assert scores.max() > 0
    assert not bound.project(np.zeros(n), relation, inverse=False).any()  # empty set: nothing
    saved = model.save(tmp_path / "again.pt")
    loaded = load_like(model, saved, nations.version)
    assert loaded.identifier == model.identifier
    again = loaded.bind(nations).project(weights, relation, inverse=False)
    assert np.allclose(again, bound.project(weights, relation, inverse=False), atol=1e-6)


@pytest.mark.parametrize("name", model_names())
def test_refit_never_keeps_the_version_of_another_graph(
    name: str, nations: NetworkXStore, tmp_path: Path
) -> None:
    model = ready(name, nations, tmp_path)
    reduced = NetworkXStore(nations.schema)
    reduced.add_nodes(nations.nodes())
    reduced.add_edges(list(nations.edges())[::2])
    fitted = refit(model, reduced, say=lambda _: None)
    if model.kg_version is None:
        assert fitted is model  # zero-shot: saw no edge of either graph
    else:
        assert fitted.kg_version == reduced.version != nations.version


def test_names_are_case_insensitive_and_unknown_names_list_the_choices() -> None:
    assert canonical_name("ULTRA") == "ultra"
    assert canonical_name("Ultra+Rules") == "ultra+rules" == DEFAULT_MODEL
    assert canonical_name("rotate") == "RotatE" and canonical_name("Trans-E") == "TransE"
    with pytest.raises(
        LinkPredictorError, match="valid: ultra, ultra_50g, ultra_4g, rules, ultra\\+rules, RotatE"
    ):
        canonical_name("GPT")
    with pytest.raises(LinkPredictorError, match="no pretrained weights"):
        pretrained("RotatE")


def test_a_fine_tuned_ultra_of_another_kg_version_is_refused(
    nations: NetworkXStore, tmp_path: Path
) -> None:
    tuned = UltraCompletion(pretrained("ultra_4g").network, name="ultra_4g", kg_version="0" * 64)
    path = tuned.save(tmp_path / "ultra_4g.pt")
    with pytest.raises(LinkPredictorError, match="fine-tuned on KG version 000000000000"):
        load_completion_model("ultra_4g", path, nations)
