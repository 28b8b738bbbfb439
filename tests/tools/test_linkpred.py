"""The link predictor: exact fast scoring, filtered metrics, persistence, proxies, bad input."""

from __future__ import annotations

import copy
import logging
import random
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.tools.linkpred import (
    SUPPORTED_MODELS,
    LinkPredictor,
    LinkPredictorError,
    PlattScaling,
    TrainingConfig,
    expected_calibration_error,
)
from kgrecall.tools.linkpred import predictor as predictor_module
from kgrecall.tools.linkpred.predictor import _filtered_metrics, _random_split


@pytest.fixture(scope="module")
def nations() -> NetworkXStore:
    return build_store([load_pykeen_dataset("nations")], name="nations")


@pytest.fixture(scope="module")
def untagged(nations: NetworkXStore) -> NetworkXStore:
    """Nations without split tags: training splits it at random."""
    store = NetworkXStore(nations.schema, nations.metadata)
    store.add_nodes(nations.nodes())
    store.add_edges(Edge(e.head, e.relation, e.tail) for e in nations.edges())
    return store


@pytest.fixture(scope="module")
def trained(nations: NetworkXStore) -> LinkPredictor:
    config = TrainingConfig(embedding_dim=32, max_epochs=40, eval_every=20, learning_rate=0.02)
    return LinkPredictor.train(nations, config, progress=False)


@pytest.mark.parametrize("model", sorted(SUPPORTED_MODELS.values()))
def test_fast_scoring_equals_pykeen_score_hrt(nations: NetworkXStore, model: str) -> None:
    config = TrainingConfig(model=model, embedding_dim=16, max_epochs=2, eval_every=2)
    predictor = LinkPredictor.train(nations, config, progress=False)
    generator = torch.Generator().manual_seed(1)
    n_entities, n_relations = len(predictor.entities), 2 * len(predictor.relations)
    batch = torch.stack(
        [
            torch.randint(n_entities, (500,), generator=generator),
            torch.randint(n_relations, (500,), generator=generator),
            torch.randint(n_entities, (500,), generator=generator),
        ],
        dim=1,
    )
    with torch.no_grad():
        reference = predictor.model.score_hrt(batch).view(-1)
    fast = predictor.raw_scores(batch[:, 0], batch[:, 1], batch[:, 2])
    torch.testing.assert_close(fast, reference, rtol=1e-5, atol=1e-5)
    all_tails = predictor.raw_scores_all_tails(batch[:5, 0], batch[:5, 1])
    with torch.no_grad():
        reference_t = predictor.model.score_t(batch[:5, :2])
    # The all-tails path is a matrix product (‖x‖² + ‖t‖² − 2⟨x, t⟩ for RotatE): float32
    # cancellation costs a few more digits than the direct difference.
    torch.testing.assert_close(all_tails, reference_t, rtol=1e-4, atol=1e-4)


def test_own_filtered_metrics_match_pykeen_evaluator(
    trained: LinkPredictor, nations: NetworkXStore
) -> None:
    from pykeen.evaluation import RankBasedEvaluator

    test = [e.triple for e in nations.edges() if e.properties["split"] == "test"]
    ids = torch.tensor(
        [
            (trained.entity_to_id[h], trained.relation_to_id[r], trained.entity_to_id[t])
            for h, r, t in test
        ]
    )
    ours = _filtered_metrics(trained.raw_scores_all_tails, ids, trained._known_tensor)
    theirs = RankBasedEvaluator().evaluate(
        trained.model,
        ids,
        additional_filter_triples=[trained._known_tensor],
        batch_size=64,
        use_tqdm=False,
    )
    assert ours.mrr == pytest.approx(
        theirs.get_metric("both.realistic.inverse_harmonic_mean_rank"), abs=1e-4
    )
    assert ours.hits_at_10 == pytest.approx(
        theirs.get_metric("both.realistic.hits_at_10"), abs=1e-4
    )
    assert trained.evaluate(test).mrr == pytest.approx(ours.mrr)


def test_training_learns_and_reports(trained: LinkPredictor) -> None:
    report = trained.report
    assert report.test.mrr > 0.4  # random ranking over 14 nations gives about 0.23
    assert report.test.go
    assert (report.n_train, report.n_valid, report.n_test) == (1592, 199, 201)
    assert report.epochs == 40 and report.validation_mrr[0][0] == 20
    assert 0.0 <= report.calibration_ece < 0.2
    assert trained.platt.slope > 0


def test_scores_probabilities_and_known_flags(
    trained: LinkPredictor, nations: NetworkXStore
) -> None:
    edge = next(iter(nations.edges()))
    [prediction] = trained.score([edge.triple])
    assert prediction.known and 0.0 < prediction.probability < 1.0
    tails = trained.predict_tails([edge.head], edge.relation)[0]
    assert len(tails) == nations.number_of_nodes()
    assert [p.score for p in tails] == sorted((p.score for p in tails), reverse=True)
    probabilities = [p.probability for p in tails]
    assert probabilities == sorted(probabilities, reverse=True)  # monotone calibration
    unknown_only = trained.predict_tails([edge.head], edge.relation, exclude_known=True)[0]
    assert unknown_only and not any(p.known for p in unknown_only)
    assert {p.tail for p in unknown_only} == {p.tail for p in tails if not p.known}
    heads = trained.predict_heads([edge.tail], edge.relation, k=3)[0]
    assert len(heads) == 3 and all(p.tail == edge.tail for p in heads)


def test_bad_requests_name_the_problem(trained: LinkPredictor) -> None:
    with pytest.raises(
        LinkPredictorError, match=r"unknown relation 'friends_with'.*knows: accusation"
    ):
        trained.score([("usa", "friends_with", "uk")])
    with pytest.raises(
        LinkPredictorError, match=r"unknown entity 'atlantis'.*add_inductive_entities"
    ):
        trained.predict_tails(["atlantis"], "embassy")
    with pytest.raises(LinkPredictorError, match="k must be a positive"):
        trained.predict_tails(["usa"], "embassy", k=0)


def test_save_load_round_trip_and_version_guard(
    trained: LinkPredictor, nations: NetworkXStore, tmp_path: Path
) -> None:
    path = trained.save(tmp_path / "nations.pt")
    loaded = LinkPredictor.load(path, kg_version=nations.version)
    sample = [e.triple for e in list(nations.edges())[:50]]
    assert [p.score for p in loaded.score(sample)] == pytest.approx(
        [p.score for p in trained.score(sample)]
    )
    assert loaded.report == trained.report
    with pytest.raises(LinkPredictorError, match=r"trained on KG version .* retrain"):
        LinkPredictor.load(path, kg_version="0" * 64)
    LinkPredictor.load(path, kg_version="0" * 64, allow_version_mismatch=True)
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(LinkPredictorError, match="not a readable model file"):
        LinkPredictor.load(tmp_path / "junk.pt")


def test_unseen_entities_get_flagged_proxies(trained: LinkPredictor, tmp_path: Path) -> None:
    predictor = copy.deepcopy(trained)  # proxies are added in place; the fixture stays as is
    grown = build_store([load_pykeen_dataset("nations")], name="nations")
    grown.add_nodes(
        [Node("usa_clone", "nation", "usa clone"), Node("nowhere", "nation", "nowhere")]
    )
    usa_edges = [e for e in grown.neighbors("usa", direction="out") if e.tail != "usa"]
    grown.add_edges([Edge("usa_clone", e.relation, e.tail) for e in usa_edges])
    built = predictor.add_inductive_entities(grown)
    assert built == {
        "usa_clone": f"fitted to {len(usa_edges)} edges",
        "nowhere": "mean of 14 nation entities",
    }
    own = predictor.score([("usa_clone", e.relation, e.tail) for e in usa_edges])
    assert all(p.inductive_proxy for p in own)
    # The proxy scores its own edges above corruptions of them (same relation, other tail).
    generator = torch.Generator().manual_seed(0)
    corrupted = [
        (
            "usa_clone",
            e.relation,
            predictor.entities[int(torch.randint(14, (1,), generator=generator))],
        )
        for e in usa_edges
    ]
    mean_own = sum(p.score for p in own) / len(own)
    mean_corrupted = sum(p.score for p in predictor.score(corrupted)) / len(corrupted)
    assert mean_own > mean_corrupted
    with pytest.raises(LinkPredictorError, match="holds inductive proxies"):
        predictor.save(tmp_path / "x.pt")


def test_degenerate_training_data_is_refused() -> None:
    empty = NetworkXStore(KGSchema.biomedical())
    with pytest.raises(LinkPredictorError, match="no edges to train on"):
        LinkPredictor.train(empty, progress=False)
    tiny = NetworkXStore(KGSchema.biomedical())
    tiny.add_nodes([Node("A", "gene", "A"), Node("B", "gene", "B")])
    tiny.add_edges([Edge("A", "regulates", "B")])
    with pytest.raises(LinkPredictorError, match="only 1 triples: too few"):
        LinkPredictor.train(tiny, progress=False)
    with pytest.raises(LinkPredictorError, match=r"unknown link-prediction model 'BERT'.*RotatE"):
        LinkPredictor.train(tiny, TrainingConfig(model="BERT"), progress=False)


def test_platt_scaling_recovers_a_known_logistic_map() -> None:
    generator = torch.Generator().manual_seed(0)
    scores = torch.randn(20_000, generator=generator) * 3
    labels = (torch.rand(20_000, generator=generator) < torch.sigmoid(1.5 * scores - 0.7)).double()
    fitted = PlattScaling.fit(scores, labels)
    # Standard errors at n = 20 000 are about 0.03; allow four of them.
    assert fitted.slope == pytest.approx(1.5, abs=0.12)
    assert fitted.intercept == pytest.approx(-0.7, abs=0.12)
    assert expected_calibration_error(fitted(scores), labels) < 0.03
    assert expected_calibration_error(torch.full((1000,), 0.9), torch.zeros(1000)) == pytest.approx(
        0.9
    )


def test_tagged_splits_move_unseen_valid_and_test_triples_into_training(
    nations: NetworkXStore,
) -> None:
    """A reduced graph keeps the edges' split tags; triples training lacks go to training."""
    edges = list(nations.edges())
    rare = next(
        r for r in sorted({e.relation for e in edges})
        if any(e.relation == r and e.properties["split"] != "train" for e in edges)
    )  # fmt: skip
    reduced = NetworkXStore(nations.schema, nations.metadata)
    reduced.add_nodes(nations.nodes())
    reduced.add_edges(
        e for e in edges if not (e.relation == rare and e.properties["split"] == "train")
    )
    rare_valid, rare_test = (
        sum(e.relation == rare and e.properties["split"] == name for e in reduced.edges())
        for name in ("valid", "test")
    )
    config = TrainingConfig(embedding_dim=8, max_epochs=1, eval_every=1)
    predictor = LinkPredictor.train(reduced, config, progress=False)
    report = predictor.report
    assert report.n_train + report.n_valid + report.n_test == reduced.number_of_edges()
    tagged_train = sum(e.properties["split"] == "train" for e in reduced.edges())
    # PyKEEN's cleanup: valid against training first, then test against training plus what
    # moved, so test keeps its triples of the relation once valid brought it into training.
    assert report.n_train == tagged_train + (rare_valid or rare_test)
    assert rare in predictor.relations


def test_a_time_budget_stops_inside_a_validation_chunk(nations: NetworkXStore) -> None:
    """The budget was checked only every ``eval_every`` epochs (``--budget-minutes 3`` ran
    1,268 s under load); now training stops after the batch that passes it."""
    config = TrainingConfig(
        embedding_dim=16, batch_size=16, max_epochs=2_000, eval_every=2_000, time_budget_s=0.5
    )
    predictor = LinkPredictor.train(nations, config, progress=False)
    report = predictor.report
    assert report.stopped_by == "time_budget"
    assert 0 <= report.epochs < 2_000  # the old check let all 2,000 epochs run
    assert len(report.validation_mrr) == 1  # the partly trained model is still validated
    assert report.test.mrr > 0.0


def _global_draws() -> tuple[list[float], list[float], list[float]]:
    return torch.rand(3).tolist(), np.random.rand(3).tolist(), [random.random() for _ in range(3)]


def _reseed_globals(seed: int) -> None:
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def test_training_is_seeded_and_leaves_the_global_random_state_alone(
    untagged: NetworkXStore, tmp_path: Path
) -> None:
    """Training (random split included) and loading used to reseed torch, numpy and random."""
    config = TrainingConfig(embedding_dim=8, max_epochs=2, eval_every=1, seed=7)
    _reseed_globals(123)
    _global_draws()
    expected = _global_draws()
    _reseed_globals(123)
    _global_draws()
    first = LinkPredictor.train(untagged, config, progress=False)
    LinkPredictor.load(first.save(tmp_path / "first.pt"))
    assert _global_draws() == expected  # as if neither had run
    second = LinkPredictor.train(untagged, config, progress=False)  # other global state
    sample = [e.triple for e in list(untagged.edges())[:50]]
    assert [p.score for p in second.score(sample)] == [p.score for p in first.score(sample)]
    other_seed = LinkPredictor.train(untagged, replace(config, seed=8), progress=False)
    assert [p.score for p in other_seed.score(sample)] != [p.score for p in first.score(sample)]


def test_training_sets_no_logger_level_and_hides_no_other_warning(
    nations: NetworkXStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Training used to raise the PyKEEN loggers to ERROR and ignore every warning meanwhile,
    process-wide: warnings of other code (other threads) running then were lost."""
    loggers = [logging.getLogger(name) for name in ("pykeen", "torch_max_mem")]
    levels = [logger.level for logger in loggers]
    during: list[list[int]] = []
    validation_mrr = predictor_module._validation_mrr

    def validate_amid_other_code(*args: Any) -> float:
        during.append([logger.level for logger in loggers])
        warnings.warn("other code's warning during training", UserWarning, stacklevel=1)
        return validation_mrr(*args)

    monkeypatch.setattr(predictor_module, "_validation_mrr", validate_amid_other_code)
    config = TrainingConfig(embedding_dim=8, max_epochs=1, eval_every=1)
    with pytest.warns(UserWarning, match="other code's warning during training"):
        LinkPredictor.train(nations, config, progress=False)
    assert during == [levels]
    assert [logger.level for logger in loggers] == levels


def test_pykeen_noise_is_avoided_or_ignored_narrowly(
    nations: NetworkXStore, caplog: pytest.LogCaptureFixture
) -> None:
    """With every warning an error, sLCWA training passes: the pin-memory warning is avoided,
    PyKEEN's shuffle deprecation ignored for its module only; no PyKEEN log warning."""
    config = TrainingConfig(training_loop="slcwa", embedding_dim=8, max_epochs=1, eval_every=1)
    with warnings.catch_warnings():
        warnings.resetwarnings()  # pytest's own filters show every DeprecationWarning
        warnings.simplefilter("error")
        predictor_module._ignore_known_warnings()  # as importing the module did
        LinkPredictor.train(nations, config, progress=False)
        with pytest.raises(DeprecationWarning, match="always shuffled"):
            warnings.warn(
                "Training instances are always shuffled.", DeprecationWarning, stacklevel=1
            )
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_random_split_keeps_every_entity_and_relation_in_training(nations: NetworkXStore) -> None:
    triples = [e.triple for e in nations.edges()]
    core = [f"c{i}" for i in range(5)]
    leafy = [(a, "r", b) for a in core for b in core if a != b]
    leafy += [(f"leaf{i:02d}", "r", core[i % 5]) for i in range(70)]  # a cover takes 74 of 90
    for graph in (triples, leafy):
        split = _random_split(graph, (0.8, 0.1, 0.1), seed=0)
        assert sorted(t for part in split.values() for t in part) == sorted(graph)
        entities = {e for h, _, t in split["train"] for e in (h, t)}
        relations = {r for _, r, _ in split["train"]}
        for h, r, t in split["valid"] + split["test"]:
            assert h in entities and t in entities and r in relations
        assert split == _random_split(graph[::-1], (0.8, 0.1, 0.1), seed=0)  # seed decides
    nations_split = _random_split(triples, (0.8, 0.1, 0.1), seed=0)
    assert [len(nations_split[name]) for name in ("train", "valid", "test")] == [1593, 199, 200]
    assert nations_split != _random_split(triples, (0.8, 0.1, 0.1), seed=1)
    # The cover outgrows 80 % of the leafy graph: PyKEEN's cleanup splitter takes over, moving
    # each leaf's only triple into training; valid and test keep core triples.
    leafy_split = _random_split(leafy, (0.8, 0.1, 0.1), seed=0)
    assert len(leafy_split["train"]) > 72 and leafy_split["valid"] and leafy_split["test"]
    with pytest.raises(LinkPredictorError, match="three positive numbers summing to 1"):
        _random_split(triples, (0.9, 0.1, 0.0), seed=0)
