"""Shared calibration fixtures: UMLS, its reduced graph and small link predictors.

Predictors are tiny (dim 32, 10 epochs: seconds on 2 cores) — the tests check the gate's and
calibrators' logic and guarantees, which hold for any scorer, not the predictor's accuracy.
"""

from __future__ import annotations

import pytest

from kgrecall.calibration import ReducedGraph, reduce_graph
from kgrecall.kg import NetworkXStore
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools import LinkPredictor, TrainingConfig

SMALL = TrainingConfig(embedding_dim=32, max_epochs=10, eval_every=10, learning_rate=0.02)


@pytest.fixture(scope="session")
def umls() -> NetworkXStore:
    return build_store([load_pykeen_dataset("umls")], name="umls")


@pytest.fixture(scope="session")
def umls_predictor(umls: NetworkXStore) -> LinkPredictor:
    return LinkPredictor.train(umls, SMALL, progress=False)


@pytest.fixture(scope="session")
def umls_reduced(umls: NetworkXStore) -> ReducedGraph:
    return reduce_graph(umls, seed=5, hide_fraction=0.25)


@pytest.fixture(scope="session")
def reduced_predictor(umls_reduced: ReducedGraph) -> LinkPredictor:
    return LinkPredictor.train(umls_reduced.store, SMALL, progress=False)
