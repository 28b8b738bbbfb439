"""ULTRA, a pretrained foundation model for KG link prediction, in pure PyTorch.

ULTRA (Galkin et al., ICLR 2024) scores ``(h, r, ?)`` on *any* graph: it never embeds
entities or relation names. A **relation model** runs 6 conditional message-passing layers on
the graph of relations (2R nodes, inverses included, linked by the 4 ways two relations can
share an entity) to give every relation a 64-d representation *for this query relation*; an
**entity model** then runs 6 layers on the entity graph (edges plus inverse edges) from the
query head, using those representations (through a per-layer MLP) as edge features, and an MLP
head turns each entity's final state into a logit. Both stacks are NBFNet layers: DistMult
messages (state ⊙ edge representation), sum aggregation plus the boundary condition, a linear
layer on [previous state, aggregate], layer norm, ReLU, residual shortcut.

Message direction follows the compiled kernel the public checkpoints were trained with: an
edge ``(a, type, b)`` of either graph updates ``a`` from ``b`` (the reverse of the reference's
PyTorch fallback; the wrong direction still runs and quietly loses ~0.45 UMLS MRR). Plain
ULTRA was also trained with the relation model conditioned on the *direct* relation ``r`` for
head queries ``(?, r, t)``, answered as ``(t, r⁻¹, ?)`` (the reference computes relation
representations before it inverts head queries); conditioning on ``r⁻¹`` instead costs up to
0.1 MRR (Nations). UltraQuery conditions on the relation itself.

On CPU the entity stack's aggregation is the cost: the states reaching a node through edges of
one type are summed by a sparse product before the type's representation multiplies them (the
same sum, as DistMult messages are products), for the types with many edges.

Set-level projection (UltraQuery's idea): the boundary condition is ``weights ⊗ query`` for a
fuzzy input set, so one pass answers "what does this set reach through ``r``"; a one-hot set is
exactly the ordinary ``(h, r, ?)`` query.
"""

from __future__ import annotations

import copy
import hashlib
import io
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from importlib import resources
from pathlib import Path
from typing import cast

import numpy as np
import torch
from torch import nn
from torch.nn import functional
from tqdm import tqdm

from kgrecall.kg import GraphStore, atomic_write_bytes
from kgrecall.tools.linkpred.base import (
    BoundCompletion,
    CompletionModel,
    LinkPredictorError,
    checked_weights,
)
from kgrecall.tools.linkpred.predictor import (
    RankMetrics,
    TrainingConfig,
    _filtered_metrics,
    _resolve_splits,
)
from kgrecall.tools.passes import PASSES

FORMAT = "kgrecall.ultra"
FORMAT_VERSION = 1
#: Hidden size and depth of both stacks (fixed by the public checkpoints).
HIDDEN = 64
N_LAYERS = 6
#: Public checkpoints by name (DeepGraphLearning/ULTRA ``ckpts/``); the vendored ones ship in
#: ``kgrecall/data/ultra``, the others load from a path.
ULTRA_CHECKPOINTS = ("ultra_3g", "ultra_4g", "ultra_50g", "ultraquery")
VENDORED_CHECKPOINTS = ("ultra_4g", "ultra_50g")
#: Relation-graph edge types in the checkpoints' row order of ``relation.weight``.
INTERACTIONS = ("hh", "tt", "ht", "th")
#: Input weights at or below this are dropped from a projection's input set: plain ULTRA was
#: trained on one-hot sets and over-propagates graded ones (UltraQuery paper); UltraQuery was
#: trained on graded sets and needs none.
DEFAULT_SET_THRESHOLD = 0.8
#: Elements of one message tensor (edges × queries × hidden) per pass. Small enough to stay in
#: CPU cache: bigger batches are slower per query (Kinships: 2**24 takes 2.4× as long).
_MESSAGE_BUDGET = 2**20
#: Edge types with at least this many edges are aggregated by a sparse product.
_TYPED_MIN_EDGES = 2048
_QUERY_PREFIX = "model.model."

TripleLabels = tuple[str, str, str]


# -- graphs -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UltraGraph:
    """Index tensors of one entity graph (edges plus inverse edges) and its relation graph.

    Every edge ``(target, type, source)`` sends ``state[source] ⊙ repr[type]`` to ``target``.
    Entity edges: ``(h, r, t)`` and its inverse ``(t, r + R, h)``. Relation edges ``(r1, k, r2)``
    with ``k`` an index into :data:`INTERACTIONS`: some entity is the first-named end of ``r1``
    and the second-named end of ``r2`` (``ht``: head of ``r1``, tail of ``r2``).
    """

    num_entities: int
    num_relations: int  #: direct relations R; the relation graph has 2R nodes
    target: torch.Tensor
    source: torch.Tensor
    edge_type: torch.Tensor
    relation_target: torch.Tensor
    relation_source: torch.Tensor
    relation_type: torch.Tensor
    #: Entity edges of the types with many edges, per type: (the type, its targets, a sparse
    #: CSR matrix targets × entities of the sources); see :func:`_typed_adjacency`.
    typed: tuple[tuple[int, torch.Tensor, torch.Tensor], ...]
    #: The entity edges of the other types, aggregated edge by edge: (target, source, type).
    untyped: tuple[torch.Tensor, torch.Tensor, torch.Tensor]

    @classmethod
    def from_triples(
        cls, triples: torch.Tensor, num_entities: int, num_relations: int
    ) -> UltraGraph:
        """The graph of index triples ``(h, r, t)``, shape ``(E, 3)``."""
        heads, relations, tails = triples.reshape(-1, 3).long().unbind(1)
        target = torch.cat([heads, tails])
        source = torch.cat([tails, heads])
        edge_type = torch.cat([relations, relations + num_relations])
        rel_target, rel_source, rel_type = _relation_graph(
            target, source, edge_type, 2 * num_relations
        )
        typed, untyped = _typed_adjacency(target, source, edge_type, num_entities)
        return cls(
            num_entities, num_relations, target, source, edge_type,
            rel_target, rel_source, rel_type, typed, untyped,
        )  # fmt: skip

    def without(self, triples: torch.Tensor) -> UltraGraph:
        """This graph less the edges of ``triples`` (both directions); the relation graph is
        kept. Training removes the batch's own edges so the model learns non-trivial paths."""
        n, r2 = self.num_entities, 2 * self.num_relations
        heads, relations, tails = triples.reshape(-1, 3).long().unbind(1)
        drop = torch.cat(
            [
                (heads * r2 + relations) * n + tails,
                (tails * r2 + relations + self.num_relations) * n + heads,
            ]
        )
        keys = (self.target * r2 + self.edge_type) * n + self.source
        keep = ~torch.isin(keys, drop)
        target, source, edge_type = self.target[keep], self.source[keep], self.edge_type[keep]
        typed, untyped = _typed_adjacency(target, source, edge_type, n)
        return UltraGraph(
            n, self.num_relations, target, source, edge_type,
            self.relation_target, self.relation_source, self.relation_type, typed, untyped,
        )  # fmt: skip


def _typed_adjacency(
    target: torch.Tensor, source: torch.Tensor, edge_type: torch.Tensor, n: int
) -> tuple[
    tuple[tuple[int, torch.Tensor, torch.Tensor], ...],
    tuple[torch.Tensor, torch.Tensor, torch.Tensor],
]:
    """For each edge type with at least :data:`_TYPED_MIN_EDGES` edges: the type, the distinct
    targets of its edges and a CSR matrix (those targets × all entities) counting the sources
    sending to each; and the edges of the other types. ``matrix @ state`` sums a
    type's incoming states without one message per edge (2–3× faster on the demo KG), but
    each product has a fixed cost that small types do not repay (20× slower on UMLS)."""
    per_type = torch.bincount(edge_type)
    big = [kind for kind in range(len(per_type)) if per_type[kind] >= _TYPED_MIN_EDGES]
    typed = []
    with warnings.catch_warnings():  # CSR support is marked beta; the product used is stable
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
        for kind in big:
            chosen = edge_type == kind
            targets, rows = torch.unique(target[chosen], return_inverse=True)
            # sorted by row, then source; a repeated edge counts as often as it is repeated,
            # as edge by edge
            keys, repeats = torch.unique(rows * n + source[chosen], return_counts=True)
            row_sizes = torch.bincount(keys // n, minlength=len(targets))
            crow = torch.cat([torch.zeros(1, dtype=torch.long), row_sizes.cumsum(0)])
            matrix = torch.sparse_csr_tensor(
                crow, keys % n, repeats.float(), (len(targets), n), check_invariants=False
            )
            typed.append((kind, targets, matrix))
    rest = ~torch.isin(edge_type, torch.tensor(big, dtype=torch.long))
    return tuple(typed), (target[rest], source[rest], edge_type[rest])


def _relation_graph(
    target: torch.Tensor, source: torch.Tensor, edge_type: torch.Tensor, r2: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Edges of the relation graph: (r1, interaction, r2) wherever the two share an entity."""
    ends = {"h": _incidence(target, edge_type, r2), "t": _incidence(source, edge_type, r2)}
    targets, sources, types = [], [], []
    for index, name in enumerate(INTERACTIONS):
        first, second = _shared(ends[name[0]], ends[name[1]], r2)
        targets.append(first)
        sources.append(second)
        types.append(torch.full((len(first),), index, dtype=torch.long))
    return torch.cat(targets), torch.cat(sources), torch.cat(types)


def _incidence(entities: torch.Tensor, edge_type: torch.Tensor, r2: int) -> torch.Tensor:
    """Distinct (entity, relation) incidences, shape ``(pairs, 2)``, sorted by entity."""
    keys = torch.unique(entities * r2 + edge_type)  # sorted
    return torch.stack([keys // r2, keys % r2], dim=1)


def _shared(a: torch.Tensor, b: torch.Tensor, r2: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Distinct relation pairs (ra, rb) with an entity in both incidence lists (a join on the
    entity: each row of ``a`` meets the rows of ``b`` with its entity)."""
    start = torch.searchsorted(b[:, 0].contiguous(), a[:, 0].contiguous())
    stop = torch.searchsorted(b[:, 0].contiguous(), a[:, 0].contiguous(), right=True)
    count = stop - start
    rows = torch.repeat_interleave(torch.arange(len(a)), count)
    offsets = torch.arange(int(count.sum())) - torch.repeat_interleave(
        count.cumsum(0) - count, count
    )
    partner = start[rows] + offsets
    keys = torch.unique(a[rows, 1] * r2 + b[partner, 1])
    return keys // r2, keys % r2


# -- the network ------------------------------------------------------------------------------
def _rows(values: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """``values[index]`` along the first axis, gathered on a 2-D view: on CPU that is several
    times faster than indexing the 3-D tensor (same result)."""
    width = values[0].numel() if len(values) else 0
    flat = values.reshape(len(values), width).index_select(0, index)
    return flat.view(len(index), *values.shape[1:])


class _Layer(nn.Module):
    """One conditional message-passing layer (NBFNet with DistMult messages, sum aggregation)."""

    def __init__(self, *, project_relations: bool) -> None:
        super().__init__()
        self.linear = nn.Linear(2 * HIDDEN, HIDDEN)
        self.layer_norm = nn.LayerNorm(HIDDEN)
        if project_relations:  # entity model: edge features from the relation model's output
            self.relation_projection = nn.Sequential(
                nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN)
            )
        else:  # relation model: one learnt vector per interaction type
            self.relation = nn.Embedding(len(INTERACTIONS), HIDDEN)

    def forward(self, state: torch.Tensor, aggregated: torch.Tensor) -> torch.Tensor:
        """New states ``(nodes, batch, hidden)`` from the states and their aggregated messages
        (boundary included)."""
        update = self.linear(torch.cat([state, aggregated], dim=-1))
        return functional.relu(self.layer_norm(update)) + state


def _aggregate_edges(
    state: torch.Tensor,
    boundary: torch.Tensor,
    edge_repr: torch.Tensor,
    target: torch.Tensor,
    source: torch.Tensor,
) -> torch.Tensor:
    """Boundary plus the sum of ``state[source] ⊙ edge_repr`` over each node's incoming edges;
    ``edge_repr``: ``(edges, batch or 1, hidden)``."""
    messages = _rows(state, source) * edge_repr
    width = boundary[0].numel() if len(boundary) else 0
    return (
        boundary.reshape(len(boundary), width)
        .index_add(0, target, messages.reshape(len(messages), width))
        .view_as(boundary)
    )


def _aggregate_typed(
    state: torch.Tensor, boundary: torch.Tensor, type_repr: torch.Tensor, graph: UltraGraph
) -> torch.Tensor:
    """:func:`_aggregate_edges` over the entity graph, where every edge carries its type's
    representation ``type_repr[type]`` (``(types, batch, hidden)``). DistMult messages commute
    with the sum, so the incoming states of each large type are summed by one sparse product
    first (see :func:`_typed_adjacency`); the other edges go one by one."""
    target, source, edge_type = graph.untyped
    aggregated = _aggregate_edges(state, boundary, _rows(type_repr, edge_type), target, source)
    nodes, batch, hidden = state.shape
    flat = state.reshape(nodes, batch * hidden)
    total = aggregated.view(nodes, batch * hidden)
    for kind, targets, matrix in graph.typed:
        summed = (matrix @ flat).view(len(targets), batch, hidden) * type_repr[kind]
        total.index_add_(0, targets, summed.view(len(targets), batch * hidden))
    return aggregated


class _RelationModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(_Layer(project_relations=False) for _ in range(N_LAYERS))

    def stack(self) -> list[_Layer]:
        return [cast(_Layer, layer) for layer in self.layers]


class _EntityModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(_Layer(project_relations=True) for _ in range(N_LAYERS))
        self.mlp = nn.Sequential(
            nn.Linear(2 * HIDDEN, 2 * HIDDEN), nn.ReLU(), nn.Linear(2 * HIDDEN, 1)
        )

    def stack(self) -> list[_Layer]:
        return [cast(_Layer, layer) for layer in self.layers]


class UltraNet(nn.Module):
    """The ULTRA network; parameter names match the public checkpoints (82 tensors)."""

    def __init__(self) -> None:
        super().__init__()
        self.relation_model = _RelationModel()
        self.entity_model = _EntityModel()

    def relation_representations(self, graph: UltraGraph, queries: torch.Tensor) -> torch.Tensor:
        """Every relation's representation for each query relation: ``(2R, batch, hidden)``.

        The query relation's node starts from all ones, the others from zeros.
        """
        boundary = torch.zeros(2 * graph.num_relations, len(queries), HIDDEN)
        boundary[queries, torch.arange(len(queries))] = 1.0
        state = boundary
        for layer in self.relation_model.stack():
            edge_repr = _rows(layer.relation.weight, graph.relation_type).unsqueeze(1)
            aggregated = _aggregate_edges(
                state, boundary, edge_repr, graph.relation_target, graph.relation_source
            )
            state = layer(state, aggregated)
        return state

    def entity_logits(
        self,
        graph: UltraGraph,
        relation_repr: torch.Tensor,
        queries: torch.Tensor,
        weights: torch.Tensor,
    ) -> torch.Tensor:
        """Logits ``(batch, entities)`` of reaching each entity from the input sets ``weights``
        ``(entities, batch)`` through relations ``queries`` (indices into ``relation_repr``'s
        first axis, one per batch column)."""
        query = relation_repr[queries, torch.arange(len(queries))]  # (batch, hidden)
        boundary = weights.unsqueeze(-1) * query.unsqueeze(0)
        state = boundary
        for layer in self.entity_model.stack():
            type_repr = layer.relation_projection(relation_repr)
            state = layer(state, _aggregate_typed(state, boundary, type_repr, graph))
        feature = torch.cat([state, query.unsqueeze(0).expand_as(state)], dim=-1)
        logits: torch.Tensor = self.entity_model.mlp(feature)
        return logits.squeeze(-1).t()


# -- checkpoints ------------------------------------------------------------------------------
def _read_checkpoint(path: Path) -> tuple[dict[str, torch.Tensor], bool]:
    """A checkpoint's state dict (the reference's ``{"model": ...}`` or a bare one) and whether
    it is UltraQuery's (its ``model.model.`` key prefix is stripped)."""
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise LinkPredictorError(f"{path}: no such ULTRA checkpoint") from None
    except Exception as error:
        raise LinkPredictorError(f"{path}: not a readable ULTRA checkpoint ({error})") from None
    state = payload.get("model", payload) if isinstance(payload, dict) else None
    if not isinstance(state, dict) or not state:
        raise LinkPredictorError(f"{path}: not an ULTRA checkpoint (no state dict)")
    if all(key.startswith(_QUERY_PREFIX) for key in state):
        return {key[len(_QUERY_PREFIX) :]: value for key, value in state.items()}, True
    return state, False


def _network_from_state(state: dict[str, torch.Tensor], where: str) -> UltraNet:
    network = UltraNet()
    try:
        network.load_state_dict(state, strict=True)
    except RuntimeError as error:
        raise LinkPredictorError(f"{where}: weights do not fit ULTRA: {error}") from None
    network.eval()
    return network


def _weights_digest(network: nn.Module) -> str:
    """sha256 of the parameters (names and float32 bytes), stable across save/load."""
    digest = hashlib.sha256()
    for name, tensor in sorted(network.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().float().contiguous().numpy().tobytes())
    return digest.hexdigest()


def vendored_checkpoint(name: str) -> Path:
    """Path of a checkpoint shipped in the package data (``ultra_4g``, ``ultra_50g``)."""
    if name not in VENDORED_CHECKPOINTS:
        raise LinkPredictorError(
            f"ULTRA checkpoint {name!r} is not shipped; shipped: {', '.join(VENDORED_CHECKPOINTS)}"
        )
    return Path(str(resources.files("kgrecall").joinpath("data", "ultra", f"{name}.pth")))


# -- the completion model ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FineTuneReport:
    """What fine-tuning did: steps, stop reason, losses and validation MRR by step."""

    steps: int
    queries_seen: int
    seconds: float
    stopped_by: str
    best_step: int
    validation_mrr: list[tuple[int, float]]
    losses: list[float]
    n_train: int
    n_valid: int
    n_test: int


class UltraCompletion(CompletionModel):
    """ULTRA weights (pretrained, or fine-tuned on one KG version) usable on any graph."""

    def __init__(
        self,
        network: UltraNet,
        *,
        name: str,
        kg_version: str | None = None,
        set_threshold: float = DEFAULT_SET_THRESHOLD,
        condition_on_direct: bool = True,
        report: FineTuneReport | None = None,
    ) -> None:
        if not 0.0 <= set_threshold < 1.0:
            raise LinkPredictorError(f"set_threshold must be in [0, 1), got {set_threshold}")
        self.network = network.eval()
        self.name = name
        self.set_threshold = set_threshold
        #: Plain ULTRA was trained with the relation model conditioned on the *direct* relation
        #: even for inverse (head) queries (the reference computes relation representations
        #: before turning head queries into inverse tail queries); UltraQuery on the relation
        #: itself. Scoring must condition as the weights were trained.
        self.condition_on_direct = condition_on_direct
        self.report = report
        self.kg_version = kg_version
        self._digest = _weights_digest(network)

    @classmethod
    def from_pretrained(
        cls, name_or_path: str | Path, *, set_threshold: float | None = None
    ) -> UltraCompletion:
        """A public checkpoint by name (shipped: ``ultra_4g``, ``ultra_50g``) or by path.

        ``set_threshold`` defaults to 0 for UltraQuery and :data:`DEFAULT_SET_THRESHOLD` for
        plain ULTRA checkpoints. UltraQuery is recognised by its key prefix.
        """
        text = str(name_or_path)
        if text in VENDORED_CHECKPOINTS:
            path = vendored_checkpoint(text)
        elif text in ULTRA_CHECKPOINTS:
            raise LinkPredictorError(
                f"ULTRA checkpoint {text!r} is not shipped (shipped: "
                f"{', '.join(VENDORED_CHECKPOINTS)}); pass the path of {text}.pth from "
                "DeepGraphLearning/ULTRA ckpts/"
            )
        else:
            path = Path(text)
        state, is_query = _read_checkpoint(path)
        name = path.stem if path.stem in ULTRA_CHECKPOINTS else f"custom-{path.stem}"
        if set_threshold is None:
            set_threshold = 0.0 if is_query else DEFAULT_SET_THRESHOLD
        network = _network_from_state(state, str(path))
        return cls(
            network, name=name, set_threshold=set_threshold, condition_on_direct=not is_query
        )

    @property
    def identifier(self) -> str:
        """``ULTRA:<checkpoint>[+ft:<kg version>]:<weights sha256>:t<set threshold>``."""
        tuned = f"+ft:{self.kg_version[:12]}" if self.kg_version else ""
        return f"ULTRA:{self.name}{tuned}:{self._digest[:12]}:t{self.set_threshold:g}"

    def bind(self, store: GraphStore) -> UltraBound:
        """Score over ``store``'s entities (sorted ids), conditioned on all its edges."""
        entity_ids = sorted(node.id for node in store.nodes())
        return self.bind_triples(entity_ids, [edge.triple for edge in store.edges()])

    def bind_triples(
        self, entity_ids: Sequence[str], triples: Iterable[TripleLabels]
    ) -> UltraBound:
        """Score over ``entity_ids`` (in that order), conditioned on the edges ``triples``."""
        edges = list(triples)
        relations = sorted({r for _, r, _ in edges})
        entity_index = {entity: i for i, entity in enumerate(entity_ids)}
        if len(entity_index) != len(entity_ids):
            raise LinkPredictorError("entity ids must be unique")
        relation_index = {relation: i for i, relation in enumerate(relations)}
        try:
            rows = [(entity_index[h], relation_index[r], entity_index[t]) for h, r, t in edges]
        except KeyError as error:
            raise LinkPredictorError(
                f"edge end {error.args[0]!r} is not among the graph's entities"
            ) from None
        mapped = torch.tensor(rows, dtype=torch.long).reshape(-1, 3)
        # built on the pass thread too: see PassThread on why torch work stays on one thread
        graph = PASSES.run(
            partial(UltraGraph.from_triples, mapped, len(entity_ids), len(relations))
        )
        return UltraBound(self, list(entity_ids), relations, graph)

    # -- persistence --------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write weights, base checkpoint name, KG version, threshold and report atomically."""
        payload = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "kg_version": self.kg_version,
            "set_threshold": self.set_threshold,
            "condition_on_direct": self.condition_on_direct,
            "state_dict": self.network.state_dict(),
            "report": asdict(self.report) if self.report else None,
        }
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        target = Path(path)
        atomic_write_bytes(target, buffer.getvalue())
        return target

    @classmethod
    def load(cls, path: str | Path) -> UltraCompletion:
        """Load a file written by :meth:`save`; refuse any other format with a clear error."""
        source = Path(path)
        try:
            payload = torch.load(source, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise LinkPredictorError(f"{source}: no such ULTRA model file") from None
        except Exception as error:
            raise LinkPredictorError(f"{source}: not a readable model file ({error})") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            found = payload.get("format") if isinstance(payload, dict) else None
            hint = (
                "; a public ULTRA checkpoint loads with UltraCompletion.from_pretrained"
                if isinstance(payload, dict) and "model" in payload
                else ""
            )
            raise LinkPredictorError(
                f"{source}: not a kgrecall ULTRA file (format {found!r}, expected {FORMAT!r}){hint}"
            )
        if payload.get("format_version") != FORMAT_VERSION:
            raise LinkPredictorError(
                f"{source}: unsupported format_version {payload.get('format_version')!r}"
            )
        record = payload["report"]
        report = None
        if record is not None:
            values = dict(record)
            values["validation_mrr"] = [(int(s), float(m)) for s, m in values["validation_mrr"]]
            report = FineTuneReport(**values)
        return cls(
            _network_from_state(payload["state_dict"], str(source)),
            name=payload["name"],
            kg_version=payload["kg_version"],
            set_threshold=float(payload["set_threshold"]),
            condition_on_direct=bool(payload["condition_on_direct"]),
            report=report,
        )


class UltraBound(BoundCompletion):
    """ULTRA bound to one graph: relation representations cached per query relation.

    Relation indices: relation ``i`` of :attr:`relations` (sorted names) is ``i``, its inverse
    ``i + R``. Representations depend only on the graph and the conditioning relation (see
    :attr:`UltraCompletion.condition_on_direct`), so each is computed once; every query then
    costs one entity-model pass, run on the pass thread (:class:`PassThread`).
    """

    def __init__(
        self,
        model: UltraCompletion,
        entity_ids: list[str],
        relations: list[str],
        graph: UltraGraph,
    ) -> None:
        self.model = model
        self.entity_ids = entity_ids
        self.relations = relations
        self.graph = graph
        self._entity_index = {entity: i for i, entity in enumerate(entity_ids)}
        self._relation_index = {relation: i for i, relation in enumerate(relations)}
        self._relation_cache: dict[int, torch.Tensor] = {}
        self._chunk = max(1, _MESSAGE_BUDGET // max(1, len(graph.edge_type) * HIDDEN))

    def knows(self, relation: str) -> bool:
        """Whether ``relation`` has edges in the bound graph (ULTRA knows relations only so)."""
        return relation in self._relation_index

    def relation_index(self, relation: str, *, inverse: bool = False) -> int:
        """Index of ``relation`` (or its inverse) in the relation graph."""
        index = self._relation_index.get(relation)
        if index is None:
            valid = ", ".join(self.relations) or "none: the graph has no edges"
            raise LinkPredictorError(
                f"unknown relation {relation!r}: ULTRA knows the bound graph's relations "
                f"(those with edges): {valid}"
            )
        return index + len(self.relations) * int(inverse)

    def entity_index(self, entity: int | str) -> int:
        """Position of an entity id (or a checked position) in :attr:`entity_ids`."""
        if isinstance(entity, str):
            index = self._entity_index.get(entity)
            if index is None:
                raise LinkPredictorError(f"unknown entity {entity!r}: not in the bound graph")
            return index
        if not 0 <= int(entity) < len(self.entity_ids):
            raise LinkPredictorError(
                f"entity position {entity} out of range [0, {len(self.entity_ids)})"
            )
        return int(entity)

    def conditioning(self, query: int) -> int:
        """The relation the relation model is conditioned on for query relation ``query``."""
        return query % len(self.relations) if self.model.condition_on_direct else query

    @torch.no_grad()
    def relation_representations(self, conditions: Sequence[int]) -> torch.Tensor:
        """Cached relation representations, ``(2R, len(conditions), hidden)``, conditioned on
        each relation index in ``conditions``."""
        missing = sorted({c for c in conditions if c not in self._relation_cache})
        if missing:
            computed = self.model.network.relation_representations(
                self.graph, torch.tensor(missing, dtype=torch.long)
            )
            for column, condition in enumerate(missing):
                self._relation_cache[condition] = computed[:, column].clone()
        return torch.stack([self._relation_cache[c] for c in conditions], dim=1)

    def logits(self, weights: torch.Tensor, queries: Sequence[int]) -> torch.Tensor:
        """Logits ``(batch, entities)`` for input sets ``weights`` ``(batch, entities)`` and
        relation indices ``queries``; evaluated in memory-bounded chunks on the pass thread
        (see :class:`PassThread`)."""
        return PASSES.run(partial(self._logits, weights, queries))

    @torch.no_grad()
    def _logits(self, weights: torch.Tensor, queries: Sequence[int]) -> torch.Tensor:
        parts = []
        for start in range(0, len(queries), self._chunk):
            chunk = list(queries[start : start + self._chunk])
            parts.append(
                self.model.network.entity_logits(
                    self.graph,
                    self.relation_representations([self.conditioning(q) for q in chunk]),
                    torch.tensor(chunk, dtype=torch.long),
                    weights[start : start + len(chunk)].t().float(),
                )
            )
        return torch.cat(parts) if parts else torch.zeros(0, len(self.entity_ids))

    def tail_logits(
        self, heads: Sequence[int | str], relation: str, *, inverse: bool = False
    ) -> torch.Tensor:
        """Logits ``(len(heads), entities)`` of every tail of ``(head, relation, ?)`` (every head
        of ``(?, relation, head)`` when ``inverse``)."""
        query = self.relation_index(relation, inverse=inverse)
        rows = torch.tensor([self.entity_index(h) for h in heads], dtype=torch.long)
        weights = functional.one_hot(rows, len(self.entity_ids)).float()
        return self.logits(weights, [query] * len(rows))

    def project(self, weights: np.ndarray, relation: str, *, inverse: bool) -> np.ndarray:
        """Probability that each entity is reached from the fuzzy set ``weights`` through
        ``relation``: one pass with boundary ``weights ⊗ query``. Weights at or below the
        model's ``set_threshold`` are dropped; an empty set reaches nothing (all zeros)."""
        query = self.relation_index(relation, inverse=inverse)
        n = len(self.entity_ids)
        values = checked_weights(weights, n)
        kept = np.where(values > self.model.set_threshold, values, 0.0)
        if not kept.any():
            return np.zeros(n, dtype=np.float32)
        boundary = torch.from_numpy(kept.astype(np.float32)).unsqueeze(0)
        logits = self.logits(boundary, [query])[0]
        return torch.sigmoid(logits).numpy().astype(np.float32)


# -- evaluation -------------------------------------------------------------------------------
def evaluate_triples(
    bound: UltraBound,
    test: Sequence[TripleLabels],
    *,
    filter_triples: Iterable[TripleLabels] = (),
) -> RankMetrics:
    """Filtered MRR / Hits@k of ``test`` in both directions on the bound graph, filtering the
    bound graph's edges, ``test`` and ``filter_triples`` (every known triple)."""
    r = len(bound.relations)

    def index(triple: TripleLabels) -> tuple[int, int, int]:
        h, relation, t = triple
        return bound.entity_index(h), bound.relation_index(relation), bound.entity_index(t)

    if not test:
        raise LinkPredictorError("no test triples to evaluate")
    ids = torch.tensor([index(t) for t in test], dtype=torch.long)
    graph = bound.graph
    direct = graph.edge_type < r
    edges = torch.stack([graph.target[direct], graph.edge_type[direct], graph.source[direct]], 1)
    extra = [index(t) for t in filter_triples if t[1] in bound.relations]
    known = torch.unique(
        torch.cat([edges, ids, torch.tensor(extra, dtype=torch.long).reshape(-1, 3)]), dim=0
    )

    def all_tails(anchors: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        # the shared metric code indexes inverse relations PyKEEN's way (2r, 2r + 1)
        queries = (relations // 2 + r * (relations % 2)).tolist()
        weights = functional.one_hot(anchors, len(bound.entity_ids)).float()
        return bound.logits(weights, queries)

    return _filtered_metrics(all_tails, ids, known)


def evaluate_pykeen(model: UltraCompletion, name: str, *, limit: int | None = None) -> RankMetrics:
    """Filtered metrics on a PyKEEN bundled dataset (``umls``, ``nations``, ``kinships``):
    graph = train split, test = test split (its first ``limit`` triples when given)."""
    from kgrecall.kg.loaders import load_pykeen_dataset

    batch = load_pykeen_dataset(name)
    parts: dict[str, list[TripleLabels]] = {"train": [], "valid": [], "test": []}
    for edge in batch.edges:
        parts[edge.properties["split"]].append(edge.triple)
    bound = model.bind_triples([node.id for node in batch.nodes], parts["train"])
    test = parts["test"][:limit] if limit is not None else parts["test"]
    return evaluate_triples(bound, test, filter_triples=parts["valid"])


def evaluate_split(
    model: UltraCompletion,
    store: GraphStore,
    *,
    seed: int = 0,
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1),
    limit: int | None = None,
) -> RankMetrics:
    """Filtered metrics on ``store``'s test split (the edges' own split tags when every edge
    has one, else the seeded split :class:`~.LinkPredictor` uses): graph = train split."""
    split = _split(store, seed, split_ratios)
    bound = model.bind_triples(sorted(node.id for node in store.nodes()), split["train"])
    test = split["test"][:limit] if limit is not None else split["test"]
    return evaluate_triples(bound, test, filter_triples=split["valid"])


def _split(
    store: GraphStore, seed: int, split_ratios: tuple[float, float, float]
) -> dict[str, list[TripleLabels]]:
    return _resolve_splits(store, TrainingConfig(seed=seed, split_ratios=split_ratios), None)


# -- fine-tuning ------------------------------------------------------------------------------
def fine_tune(
    model: UltraCompletion,
    store: GraphStore,
    *,
    budget_s: float,
    seed: int = 0,
    batch_size: int = 4,
    learning_rate: float = 5e-4,
    num_negatives: int = 256,
    adversarial_temperature: float = 1.0,
    eval_every: int = 50,
    patience: int = 4,
    valid_sample: int = 200,
    max_steps: int | None = None,
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1),
    progress: bool = True,
) -> UltraCompletion:
    """A copy of ``model`` fine-tuned on ``store`` (``kg_version = store.version``).

    Trains on the train split (seeded, as :func:`evaluate_split` splits) in both directions
    with the reference's loss: binary cross-entropy on the true answer and ``num_negatives``
    strict negatives (not known train answers), negatives weighted self-adversarially; the
    batch's own edges are removed from the graph. Keeps the weights with the best filtered
    MRR on a validation sample (checked every ``eval_every`` steps, from step 0), stops on
    ``patience`` checks without gain, ``max_steps`` or the wall-time ``budget_s`` (checked
    before every step and every validation). Seeds only local generators.
    """
    if budget_s <= 0 or batch_size < 1 or num_negatives < 1 or eval_every < 1 or patience < 1:
        raise LinkPredictorError(
            "budget_s, batch_size, num_negatives, eval_every and patience must be positive"
        )
    if learning_rate <= 0 or adversarial_temperature <= 0:
        raise LinkPredictorError("learning_rate and adversarial_temperature must be positive")
    start = time.perf_counter()
    split = _split(store, seed, split_ratios)
    tuned = UltraCompletion(
        copy.deepcopy(model.network),
        name=model.name,
        set_threshold=model.set_threshold,
        condition_on_direct=model.condition_on_direct,
    )
    bound = tuned.bind_triples(sorted(node.id for node in store.nodes()), split["train"])
    r, n = len(bound.relations), len(bound.entity_ids)
    train = torch.tensor(
        [(bound.entity_index(h), bound.relation_index(rel), bound.entity_index(t))
         for h, rel, t in split["train"]],
        dtype=torch.long,
    )  # fmt: skip
    # queries in tail mode: (anchor, relation index with inverses, answer), both directions
    queries = torch.cat([train, torch.stack([train[:, 2], train[:, 1] + r, train[:, 0]], dim=1)])
    answers: dict[tuple[int, int], list[int]] = {}
    for a, q, b in queries.tolist():
        answers.setdefault((a, q), []).append(b)
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(split["valid"]), generator=generator)[:valid_sample].tolist()
    valid = [split["valid"][i] for i in order]
    known = split["train"] + split["valid"] + split["test"]
    network = tuned.network
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)

    def validate() -> float:
        network.eval()
        check = tuned.bind_triples(bound.entity_ids, split["train"])  # fresh cache
        return evaluate_triples(check, valid, filter_triples=known).mrr if valid else 0.0

    history: list[tuple[int, float]] = [(0, validate())]
    validation_s = time.perf_counter() - start
    best_state = copy.deepcopy(network.state_dict())
    best_mrr, best_step, stale, step = history[0][1], 0, 0, 0
    losses: list[float] = []
    stopped_by = "max_steps"
    permutation = torch.randperm(len(queries), generator=generator)
    cursor = seen = 0
    bar = tqdm(total=max_steps, desc="fine-tune ULTRA", unit="step", disable=not progress)
    while max_steps is None or step < max_steps:
        elapsed = time.perf_counter() - start
        per_step = (elapsed - validation_s * len(history)) / max(1, step)
        if elapsed + per_step > budget_s:
            stopped_by = "time_budget"
            break
        if cursor >= len(permutation):
            permutation, cursor = torch.randperm(len(queries), generator=generator), 0
        batch = queries[permutation[cursor : cursor + batch_size]]
        cursor += batch_size
        seen += len(batch)
        loss = _training_loss(
            network, bound.graph, batch, answers, n, r, tuned.condition_on_direct,
            num_negatives, adversarial_temperature, generator,
        )  # fmt: skip
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        optimizer.step()
        step += 1
        losses.append(loss.item())
        bar.update(1)
        bar.set_postfix(loss=f"{losses[-1]:.3f}", best_mrr=f"{best_mrr:.3f}")
        if step % eval_every == 0:
            if time.perf_counter() - start + validation_s > budget_s:
                stopped_by = "time_budget"
                break
            mrr = validate()
            history.append((step, mrr))
            if mrr > best_mrr + 1e-4:
                best_mrr, best_step, stale = mrr, step, 0
                best_state = copy.deepcopy(network.state_dict())
            else:
                stale += 1
                if stale >= patience:
                    stopped_by = "early_stopping"
                    break
    bar.close()
    if not valid:  # nothing to select on: keep the last weights
        best_state, best_step = network.state_dict(), step
    elif step > history[-1][0] and time.perf_counter() - start + validation_s <= budget_s:
        mrr = validate()  # the steps since the last check count if they are better
        history.append((step, mrr))
        if mrr > best_mrr + 1e-4:
            best_mrr, best_step = mrr, step
            best_state = copy.deepcopy(network.state_dict())
    network.load_state_dict(best_state)
    report = FineTuneReport(
        steps=step,
        queries_seen=seen,
        seconds=time.perf_counter() - start,
        stopped_by=stopped_by,
        best_step=best_step,
        validation_mrr=history,
        losses=losses,
        n_train=len(split["train"]),
        n_valid=len(split["valid"]),
        n_test=len(split["test"]),
    )
    return UltraCompletion(
        network,
        name=model.name,
        kg_version=store.version,
        set_threshold=model.set_threshold,
        condition_on_direct=model.condition_on_direct,
        report=report,
    )


def _training_loss(
    network: UltraNet,
    graph: UltraGraph,
    batch: torch.Tensor,
    answers: dict[tuple[int, int], list[int]],
    n: int,
    r: int,
    condition_on_direct: bool,
    num_negatives: int,
    temperature: float,
    generator: torch.Generator,
) -> torch.Tensor:
    """The reference's loss for tail-mode queries ``batch`` ``(B, 3)``: BCE on the answer and
    on strict negatives weighted by a softmax over their own logits (self-adversarial)."""
    network.train()
    anchors, relations, targets = batch.unbind(1)
    direct = torch.stack(
        [torch.where(relations < r, anchors, targets), relations % r,
         torch.where(relations < r, targets, anchors)],
        dim=1,
    )  # fmt: skip
    reduced = graph.without(direct)
    conditions = relations % r if condition_on_direct else relations
    relation_repr = network.relation_representations(reduced, conditions)
    weights = functional.one_hot(anchors, n).float().t()
    logits = network.entity_logits(reduced, relation_repr, relations, weights)
    allowed = torch.ones(len(batch), n, dtype=torch.bool)
    for row, (a, q, b) in enumerate(batch.tolist()):
        allowed[row, answers.get((a, q), [])] = False
        allowed[row, b] = False
        if not allowed[row].any():  # every entity is a known answer: any other will do
            allowed[row] = True
            allowed[row, b] = False
    negatives = torch.multinomial(
        allowed.float(), num_negatives, replacement=True, generator=generator
    )
    scores = torch.cat([logits.gather(1, targets.unsqueeze(1)), logits.gather(1, negatives)], 1)
    labels = torch.zeros_like(scores)
    labels[:, 0] = 1.0
    loss = functional.binary_cross_entropy_with_logits(scores, labels, reduction="none")
    weight = torch.ones_like(scores)
    with torch.no_grad():
        weight[:, 1:] = torch.softmax(scores[:, 1:] / temperature, dim=-1)
    return ((loss * weight).sum(-1) / weight.sum(-1)).mean()


__all__ = [
    "DEFAULT_SET_THRESHOLD",
    "ULTRA_CHECKPOINTS",
    "VENDORED_CHECKPOINTS",
    "FineTuneReport",
    "UltraBound",
    "UltraCompletion",
    "UltraGraph",
    "UltraNet",
    "evaluate_pykeen",
    "evaluate_split",
    "evaluate_triples",
    "fine_tune",
    "vendored_checkpoint",
]
