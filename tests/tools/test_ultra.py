"""ULTRA in pure PyTorch: checkpoints, equality with a loop-per-edge reference, the bound API,
zero-shot accuracy on a UMLS sample, fine-tuning, persistence and bad input."""

from __future__ import annotations

import math
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch.nn import functional

from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node
from kgrecall.kg.deadline import low_priority
from kgrecall.kg.loaders import load_pykeen_dataset
from kgrecall.tools import vector as vector_module
from kgrecall.tools.linkpred import (
    VENDORED_CHECKPOINTS,
    LinkPredictorError,
    UltraBound,
    UltraCompletion,
    evaluate_pykeen,
    fine_tune,
)
from kgrecall.tools.linkpred import ultra as ultra_module
from kgrecall.tools.linkpred.ultra import (
    INTERACTIONS,
    UltraGraph,
    UltraNet,
    vendored_checkpoint,
)
from kgrecall.tools.passes import PassThread

SHARED = Path("/work/shared/models/ultra")
#: Zero-shot filtered MRR on UMLS's full test split (both directions), from the reference.
UMLS_REFERENCE_MRR = {"ultra_4g": 0.668, "ultra_50g": 0.806}


@pytest.fixture(scope="module")
def ultra_4g() -> UltraCompletion:
    return UltraCompletion.from_pretrained("ultra_4g")


def tiny_store(seed: int = 0, n_entities: int = 8, n_edges: int = 20) -> NetworkXStore:
    """A random graph: 3 relations, some entities isolated or with one edge."""
    rng = random.Random(seed)
    store = NetworkXStore(KGSchema.from_relations(["a_rel", "b_rel", "c_rel"]))
    store.add_nodes(Node(f"E{i}", "entity", f"entity {i}") for i in range(n_entities))
    edges = {
        (f"E{rng.randrange(n_entities - 1)}", rng.choice("abc") + "_rel", f"E{rng.randrange(6)}")
        for _ in range(n_edges)
    }
    store.add_edges(Edge(h, r, t) for h, r, t in sorted(edges))
    return store


# -- checkpoints ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", VENDORED_CHECKPOINTS)
def test_vendored_checkpoints_load_strict(name: str) -> None:
    model = UltraCompletion.from_pretrained(name)
    assert model.kg_version is None
    assert model.identifier.startswith(f"ULTRA:{name}:")
    assert sum(p.numel() for p in model.network.parameters()) == 168_705
    state = torch.load(vendored_checkpoint(name), map_location="cpu", weights_only=True)["model"]
    UltraNet().load_state_dict(state, strict=True)


@pytest.mark.parametrize("name", ["ultra_3g", "ultraquery"])
def test_other_public_checkpoints_load_strict_from_a_path(name: str) -> None:
    path = SHARED / f"{name}.pth"
    if not path.exists():
        pytest.skip(f"{path} not present")
    model = UltraCompletion.from_pretrained(path)
    assert model.name == name
    assert model.set_threshold == (0.0 if name == "ultraquery" else 0.8)
    assert model.condition_on_direct == (name != "ultraquery")


# -- a slow reference of the same maths -----------------------------------------------------
def reference_relation_graph(
    triples: list[tuple[int, int, int]], n_relations: int
) -> list[tuple[int, int, int]]:
    """(r1, interaction, r2) by brute force over relation pairs and entities."""
    r2 = 2 * n_relations
    ends: dict[str, list[set[int]]] = {
        "h": [set() for _ in range(r2)],
        "t": [set() for _ in range(r2)],
    }
    for h, r, t in triples:
        ends["h"][r].add(h)
        ends["t"][r].add(t)
        ends["h"][r + n_relations].add(t)
        ends["t"][r + n_relations].add(h)
    return [
        (first, k, second)
        for k, name in enumerate(INTERACTIONS)
        for first in range(r2)
        for second in range(r2)
        if ends[name[0]][first] & ends[name[1]][second]
    ]


def reference_layer(
    layer: Any,
    state: list[torch.Tensor],
    boundary: list[torch.Tensor],
    edges: list[tuple[int, int, int]],
    edge_repr: list[torch.Tensor],
) -> list[torch.Tensor]:
    """One layer, one node and one edge at a time: target gets state[source] ⊙ repr[type]."""
    aggregated = [b.clone() for b in boundary]
    for target, kind, source in edges:
        aggregated[target] = aggregated[target] + state[source] * edge_repr[kind]
    out = []
    for node in range(len(state)):
        x = torch.cat([state[node], aggregated[node]])
        y = layer.linear.weight @ x + layer.linear.bias
        y = (y - y.mean()) / torch.sqrt(y.var(unbiased=False) + layer.layer_norm.eps)
        y = y * layer.layer_norm.weight + layer.layer_norm.bias
        out.append(torch.clamp(y, min=0) + state[node])
    return out


def reference_relations(
    net: UltraNet, triples: list[tuple[int, int, int]], n_rel: int, query: int
) -> torch.Tensor:
    """Relation representations (2R, d) for one query relation."""
    relation_edges = reference_relation_graph(triples, n_rel)
    boundary = [torch.ones(64) if r == query else torch.zeros(64) for r in range(2 * n_rel)]
    state = boundary
    for layer in net.relation_model.stack():
        state = reference_layer(layer, state, boundary, relation_edges, list(layer.relation.weight))
    return torch.stack(state)


def reference_logits(
    net: UltraNet,
    triples: list[tuple[int, int, int]],
    n: int,
    relations: torch.Tensor,
    head: int,
    query: int,
) -> torch.Tensor:
    """Tail logits (n,) of (head, query, ?) given the relation representations."""
    n_rel = len(relations) // 2
    entity_edges = [(h, r, t) for h, r, t in triples] + [(t, r + n_rel, h) for h, r, t in triples]
    q = relations[query]
    boundary = [q.clone() if e == head else torch.zeros(64) for e in range(n)]
    state = boundary
    for layer in net.entity_model.stack():
        projection: Any = layer.relation_projection
        edge_repr = [
            projection[2].weight @ torch.relu(projection[0].weight @ rel + projection[0].bias)
            + projection[2].bias
            for rel in relations
        ]
        state = reference_layer(layer, state, boundary, entity_edges, edge_repr)
    mlp: Any = net.entity_model.mlp
    hidden = [torch.relu(mlp[0].weight @ torch.cat([s, q]) + mlp[0].bias) for s in state]
    return torch.stack([(mlp[2].weight @ h + mlp[2].bias)[0] for h in hidden])


@pytest.mark.parametrize("typed_min_edges", [1, 6, 10**9], ids=["sparse", "mixed", "per-edge"])
def test_vectorised_model_equals_the_loop_reference(
    ultra_4g: UltraCompletion, typed_min_edges: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both aggregations (a sparse product per edge type, edge by edge) and their mix."""
    monkeypatch.setattr(ultra_module, "_TYPED_MIN_EDGES", typed_min_edges)
    store = tiny_store()
    bound = ultra_4g.bind(store)
    typed, untyped = len(bound.graph.typed), len(bound.graph.untyped[0])
    expected = {1: (typed > 0, untyped == 0), 6: (typed > 0, untyped > 0)}
    assert expected.get(typed_min_edges, (typed == 0, untyped > 0)) == (True, True)
    n, n_rel = len(bound.entity_ids), len(bound.relations)
    triples = [
        (bound.entity_index(e.head), bound.relation_index(e.relation), bound.entity_index(e.tail))
        for e in store.edges()
    ]
    network = ultra_4g.network
    for query in range(2 * n_rel):
        condition = query % n_rel  # plain ULTRA conditions inverse queries on the direct relation
        with torch.no_grad():
            relations = reference_relations(network, triples, n_rel, query)
            conditioned = reference_relations(network, triples, n_rel, condition)
        torch.testing.assert_close(
            bound.relation_representations([query])[:, 0], relations, rtol=1e-5, atol=1e-5
        )
        for head in (0, 3, n - 1):  # n - 1 is isolated
            with torch.no_grad():
                logits = reference_logits(network, triples, n, conditioned, head, query)
            one_hot = functional.one_hot(torch.tensor([head]), n).float()
            torch.testing.assert_close(
                bound.logits(one_hot, [query])[0], logits, rtol=1e-5, atol=1e-5
            )


def test_both_aggregations_count_a_repeated_edge_as_often_as_it_is_given(
    ultra_4g: UltraCompletion, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A triple given twice sends its message twice, by sparse product as edge by edge."""
    store = tiny_store()
    entities = sorted(node.id for node in store.nodes())
    triples = [edge.triple for edge in store.edges()]
    repeated = [*triples, *triples[:5]]
    logits = {}
    for name, minimum in (("sparse", 1), ("per-edge", 10**9)):
        monkeypatch.setattr(ultra_module, "_TYPED_MIN_EDGES", minimum)
        bound = ultra_4g.bind_triples(entities, repeated)
        logits[name] = bound.tail_logits([entities[0], entities[3]], triples[0][1])
    torch.testing.assert_close(logits["sparse"], logits["per-edge"], rtol=1e-5, atol=1e-5)
    once = ultra_4g.bind_triples(entities, triples).tail_logits([entities[0]], triples[0][1])
    assert not torch.allclose(once, logits["sparse"][:1])  # the repeats do count


# -- the bound API ----------------------------------------------------------------------------
def test_bind_orders_entities_and_relations(ultra_4g: UltraCompletion) -> None:
    store = tiny_store()
    bound = ultra_4g.bind(store)
    assert bound.entity_ids == sorted(node.id for node in store.nodes())
    assert bound.relations == sorted({e.relation for e in store.edges()})
    assert all(bound.knows(r) for r in bound.relations) and not bound.knows("treats")
    r = len(bound.relations)
    assert bound.relation_index("b_rel", inverse=True) == bound.relation_index("b_rel") + r


def test_project_with_one_hot_weights_equals_tail_logits(ultra_4g: UltraCompletion) -> None:
    bound = ultra_4g.bind(tiny_store())
    for inverse in (False, True):
        logits = bound.tail_logits(["E1", "E2"], "a_rel", inverse=inverse)
        for row, head in enumerate(("E1", "E2")):
            weights = np.zeros(len(bound.entity_ids), dtype=np.float32)
            weights[bound.entity_index(head)] = 1.0
            probabilities = bound.project(weights, "a_rel", inverse=inverse)
            assert probabilities.dtype == np.float32 and probabilities.shape == weights.shape
            np.testing.assert_allclose(
                probabilities, torch.sigmoid(logits[row]).numpy(), rtol=1e-6, atol=1e-7
            )


def test_graph_construction_and_embeddings_run_on_the_torch_thread(
    ultra_4g: UltraCompletion, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Binding and sentence embeddings use the pass thread too: a torch operator on any other
    thread starts a second OpenMP team, which slows every later pass (see PassThread)."""
    ran_on: list[str] = []
    from_triples = UltraGraph.from_triples

    def recorded_graph(*args: Any) -> UltraGraph:
        ran_on.append(threading.current_thread().name)
        return from_triples(*args)

    monkeypatch.setattr(UltraGraph, "from_triples", recorded_graph)
    ultra_4g.bind(tiny_store())

    class Encoder:
        def encode(self, texts: list[str], **_: Any) -> np.ndarray:
            ran_on.append(threading.current_thread().name)
            return np.ones((len(texts), 3))

    monkeypatch.setattr(vector_module, "_model", Encoder)
    assert vector_module.embed(["a", "b"]).shape == (2, 3)
    assert ran_on == ["kgrecall-torch", "kgrecall-torch"]


def test_passes_run_on_one_thread_whichever_thread_asks(
    ultra_4g: UltraCompletion, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every inference pass runs on the pass thread (one malloc arena's high-water mark, not
    one per request thread), with the same result as before; errors reach the caller."""
    bound = ultra_4g.bind(tiny_store())
    weights = np.zeros(len(bound.entity_ids), dtype=np.float32)
    weights[1] = 1.0
    expected = bound.project(weights, "a_rel", inverse=False)
    ran_on: list[str] = []
    entity_logits = bound.model.network.entity_logits

    def recorded(*args: Any) -> torch.Tensor:
        ran_on.append(threading.current_thread().name)
        return entity_logits(*args)

    monkeypatch.setattr(bound.model.network, "entity_logits", recorded)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: bound.project(weights, "a_rel", inverse=False), range(8)))
    assert len(ran_on) == 8 and set(ran_on) == {"kgrecall-torch"}
    for result in results:
        np.testing.assert_array_equal(result, expected)

    def broken(*_: Any) -> torch.Tensor:
        raise RuntimeError("pass failed")

    monkeypatch.setattr(bound.model.network, "entity_logits", broken)
    with pytest.raises(RuntimeError, match="pass failed"):
        bound.project(weights, "a_rel", inverse=False)


def test_paced_passes_wait_for_normal_ones() -> None:
    """Passes queued inside ``low_priority`` (the server's heavy lane) run after every normal
    pass already waiting, whatever the order they were queued in."""
    passes = PassThread()
    release = threading.Event()
    started = threading.Event()
    order: list[str] = []

    def blocker() -> str:
        started.set()
        release.wait(10)
        return "blocker"

    def record(name: str) -> str:
        order.append(name)
        return name

    def paced(name: str) -> str:
        with low_priority(0.5):
            return passes.run(partial(record, name))

    with ThreadPoolExecutor(5) as pool:
        first = pool.submit(passes.run, blocker)
        assert started.wait(10)  # the pass thread is busy: what follows queues up
        queued = [pool.submit(paced, "paced-1"), pool.submit(paced, "paced-2")]
        while passes._queue.qsize() < 2:
            threading.Event().wait(0.01)
        queued.append(pool.submit(passes.run, partial(record, "normal")))
        while passes._queue.qsize() < 3:
            threading.Event().wait(0.01)
        release.set()
        assert first.result(10) == "blocker"
        assert [future.result(10) for future in queued] == ["paced-1", "paced-2", "normal"]
    assert order == ["normal", "paced-1", "paced-2"]


def test_fuzzy_sets_are_one_pass_and_thresholded(ultra_4g: UltraCompletion) -> None:
    bound = ultra_4g.bind(tiny_store())
    n = len(bound.entity_ids)
    weights = np.zeros(n)
    weights[[1, 2]] = [1.0, 0.9]
    both = bound.project(weights, "a_rel", inverse=False)
    boundary = torch.from_numpy(weights).float().unsqueeze(0)
    query = bound.relation_index("a_rel")
    np.testing.assert_allclose(both, torch.sigmoid(bound.logits(boundary, [query])[0]), rtol=1e-6)
    below = np.full(n, 0.5)  # all at or below the plain checkpoints' 0.8 threshold
    assert not bound.project(below, "a_rel", inverse=False).any()


def umls_parts() -> dict[str, list[tuple[str, str, str]]]:
    parts: dict[str, list[tuple[str, str, str]]] = {"train": [], "valid": [], "test": []}
    for edge in load_pykeen_dataset("umls").edges:
        parts[edge.properties["split"]].append(edge.triple)
    return parts


def filtered_reciprocal_ranks(
    bound: UltraBound,
    triples: list[tuple[str, str, str]],
    known: set[tuple[str, str, str]],
    *,
    inverse: bool,
) -> list[float]:
    """1 / filtered rank of each triple's tail (its head when ``inverse``), every known
    answer but the true one removed; one batched query per relation."""
    entities = bound.entity_ids
    reciprocal: dict[int, float] = {}
    for relation in sorted({r for _, r, _ in triples}):
        rows = [i for i, t in enumerate(triples) if t[1] == relation]
        anchors = [triples[i][2] if inverse else triples[i][0] for i in rows]
        logits = bound.tail_logits(anchors, relation, inverse=inverse)
        for row, i in enumerate(rows):
            head, _, tail = triples[i]
            anchor, answer = (tail, head) if inverse else (head, tail)
            scores = logits[row].clone()
            for j, other in enumerate(entities):
                fact = (other, relation, anchor) if inverse else (anchor, relation, other)
                if other != answer and fact in known:
                    scores[j] = -math.inf
            own = scores[bound.entity_index(answer)]
            reciprocal[i] = 1 / (int((scores > own).sum()) + 1)
    return [reciprocal[i] for i in range(len(triples))]


def test_inverse_direction_answers_heads(ultra_4g: UltraCompletion) -> None:
    parts = umls_parts()
    entities = sorted({e for part in parts.values() for h, _, t in part for e in (h, t)})
    bound = ultra_4g.bind_triples(entities, parts["train"])
    known = {triple for part in parts.values() for triple in part}
    sample = random.Random(1).sample(parts["test"], 20)
    reciprocal = filtered_reciprocal_ranks(bound, sample, known, inverse=True)
    # filtered head MRR; a random order of 135 entities would give about 0.04
    assert sum(reciprocal) / len(reciprocal) > 0.4, reciprocal
    inverse = bound.relation_index(sample[0][1], inverse=True)
    anchor = torch.tensor([bound.entity_index(sample[0][2])])
    torch.testing.assert_close(
        bound.tail_logits([sample[0][2]], sample[0][1], inverse=True),
        bound.logits(functional.one_hot(anchor, len(entities)).float(), [inverse]),
    )


def test_relation_cache_gives_identical_results(ultra_4g: UltraCompletion) -> None:
    store = tiny_store()
    bound = ultra_4g.bind(store)
    first = bound.tail_logits(["E0", "E3"], "c_rel")
    cached = dict(bound._relation_cache)
    assert list(cached) == [bound.relation_index("c_rel")]
    again = bound.tail_logits(["E0", "E3"], "c_rel")
    assert torch.equal(first, again)
    assert all(torch.equal(cached[k], bound._relation_cache[k]) for k in cached)
    fresh = ultra_4g.bind(store).tail_logits(["E0", "E3"], "c_rel")
    assert torch.equal(first, fresh)
    # batched computation of several relations equals one at a time
    many = bound.relation_representations([0, 1, 2, 3, 4, 5])
    for query in range(6):
        single = ultra_4g.bind(store).relation_representations([query])[:, 0]
        torch.testing.assert_close(many[:, query], single, rtol=1e-6, atol=1e-6)


# -- zero-shot accuracy -----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(UMLS_REFERENCE_MRR))
def test_zero_shot_umls_sample_matches_the_reference(name: str) -> None:
    """Mean reciprocal rank over a seeded sample of test triples (both directions averaged
    per triple) lies within 4 standard errors of the reference's full-test MRR; the standard
    error is the sample's own, with the finite-population correction (sample of the split)."""
    model = UltraCompletion.from_pretrained(name)
    parts = umls_parts()
    entities = sorted({e for part in parts.values() for h, _, t in part for e in (h, t)})
    bound = model.bind_triples(entities, parts["train"])
    population = len(parts["test"])
    sample = random.Random(0).sample(parts["test"], 80)
    known = {triple for part in parts.values() for triple in part}
    tails = filtered_reciprocal_ranks(bound, sample, known, inverse=False)
    heads = filtered_reciprocal_ranks(bound, sample, known, inverse=True)
    per_triple = [(t + h) / 2 for t, h in zip(tails, heads, strict=True)]
    n = len(per_triple)
    mean = sum(per_triple) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_triple) / (n - 1))
    standard_error = sd / math.sqrt(n) * math.sqrt((population - n) / (population - 1))
    assert abs(mean - UMLS_REFERENCE_MRR[name]) <= 4 * standard_error, (mean, standard_error)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(UMLS_REFERENCE_MRR))
def test_zero_shot_umls_full_test_split(name: str) -> None:
    metrics = evaluate_pykeen(UltraCompletion.from_pretrained(name), "umls")
    assert metrics.mrr == pytest.approx(UMLS_REFERENCE_MRR[name], abs=0.005)


# -- fine-tuning and persistence --------------------------------------------------------------
@pytest.mark.parametrize("typed_min_edges", [1, 10**9], ids=["sparse", "per-edge"])
def test_fine_tune_lowers_the_loss_and_round_trips(
    ultra_4g: UltraCompletion,
    tmp_path: Path,
    typed_min_edges: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Gradients flow through both aggregations."""
    monkeypatch.setattr(ultra_module, "_TYPED_MIN_EDGES", typed_min_edges)
    store = tiny_store(seed=3, n_entities=10, n_edges=40)
    tuned = fine_tune(
        ultra_4g,
        store,
        budget_s=60,
        seed=0,
        batch_size=64,  # every training query each step: a smooth loss curve
        learning_rate=5e-3,
        num_negatives=16,
        eval_every=100,
        max_steps=12,
        progress=False,
    )
    report = tuned.report
    assert report is not None and report.steps == 12 and report.stopped_by == "max_steps"
    assert np.mean(report.losses[-3:]) < np.mean(report.losses[:3])
    assert tuned.kg_version == store.version
    assert store.version[:12] in tuned.identifier and tuned.identifier != ultra_4g.identifier
    assert ultra_4g.kg_version is None  # the original is untouched
    path = tuned.save(tmp_path / "ultra.pt")
    loaded = UltraCompletion.load(path)
    assert loaded.identifier == tuned.identifier and loaded.report == report
    probe = loaded.bind(store).tail_logits(["E0", "E1"], "a_rel")
    assert torch.equal(probe, tuned.bind(store).tail_logits(["E0", "E1"], "a_rel"))


def test_fine_tune_respects_the_budget(ultra_4g: UltraCompletion) -> None:
    tuned = fine_tune(ultra_4g, tiny_store(seed=3, n_edges=40), budget_s=0.5, progress=False)
    assert tuned.report is not None and tuned.report.stopped_by == "time_budget"
    assert tuned.report.seconds < 5


# -- bad input --------------------------------------------------------------------------------
def test_bad_inputs_give_clear_errors(ultra_4g: UltraCompletion, tmp_path: Path) -> None:
    bound: UltraBound = ultra_4g.bind(tiny_store())
    n = len(bound.entity_ids)
    with pytest.raises(LinkPredictorError, match=r"unknown relation 'treats'.*a_rel, b_rel, c_rel"):
        bound.project(np.zeros(n), "treats", inverse=False)
    with pytest.raises(LinkPredictorError, match=rf"shape \({n},\)"):
        bound.project(np.zeros(n + 1), "a_rel", inverse=False)
    with pytest.raises(LinkPredictorError, match=r"in \[0, 1\]"):
        bound.project(np.full(n, 2.0), "a_rel", inverse=False)
    with pytest.raises(LinkPredictorError, match=r"in \[0, 1\]"):
        bound.project(np.full(n, np.nan), "a_rel", inverse=False)
    with pytest.raises(LinkPredictorError, match="unknown entity 'nope'"):
        bound.tail_logits(["nope"], "a_rel")
    with pytest.raises(LinkPredictorError, match="out of range"):
        bound.tail_logits([n], "a_rel")
    with pytest.raises(LinkPredictorError, match=r"not shipped.*path"):
        UltraCompletion.from_pretrained("ultra_3g")
    with pytest.raises(LinkPredictorError, match="no such ULTRA checkpoint"):
        UltraCompletion.from_pretrained(tmp_path / "missing.pth")
    with pytest.raises(LinkPredictorError, match="from_pretrained"):
        UltraCompletion.load(vendored_checkpoint("ultra_4g"))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a model")
    with pytest.raises(LinkPredictorError, match="not a readable model file"):
        UltraCompletion.load(junk)
    other = tmp_path / "other.pt"
    torch.save({"format": "kgrecall.linkpred"}, other)
    with pytest.raises(LinkPredictorError, match="not a kgrecall ULTRA file"):
        UltraCompletion.load(other)
    with pytest.raises(LinkPredictorError, match="weights do not fit ULTRA"):
        torch.save({"model": {"x": torch.zeros(1)}}, tmp_path / "bad.pth")
        UltraCompletion.from_pretrained(tmp_path / "bad.pth")
    with pytest.raises(LinkPredictorError, match="must be positive"):
        fine_tune(ultra_4g, tiny_store(), budget_s=0)
    with pytest.raises(LinkPredictorError, match="set_threshold"):
        UltraCompletion(ultra_4g.network, name="x", set_threshold=1.5)
