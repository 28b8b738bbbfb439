"""The link predictor: PyKEEN training, filtered evaluation, calibrated fast scoring, proxies.

Training runs PyKEEN (model by name through its resolver) with inverse relations, in chunks
of ``eval_every`` epochs, keeping the weights with the best filtered validation MRR, and stops
on patience, ``max_epochs`` or a wall-time budget. Afterwards the entity and relation
representations are cached as plain tensors; every scoring call is an index lookup plus the
model's interaction function (:mod:`kgrecall.tools.linkpred.scoring`). Raw scores map to
probabilities by Platt scaling fitted on validation triples against as many filtered random
corruptions.

Head-side queries ``(?, r, t)`` are answered as PyKEEN does for models trained with inverse
relations: by scoring ``(t, r⁻¹, ?)``.

Training is seeded without leaving a trace in the caller's global random state, and changes
no logger level or warning filter per call (see :func:`_seeded`, :func:`_ignore_known_warnings`).
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import math
import random
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from kgrecall.kg import GraphStore, atomic_write_bytes
from kgrecall.tools.linkpred.base import CompletionModel, LinkPredictorError
from kgrecall.tools.linkpred.calibration import PlattScaling, expected_calibration_error
from kgrecall.tools.linkpred.defaults import SUPPORTED_MODELS, TrainingLoop
from kgrecall.tools.linkpred.pairwise import PairwiseBinding
from kgrecall.tools.linkpred.scoring import (
    ALL_TAILS_SCORERS,
    FAST_SCORERS,
    Scorer,
    chunked_all_tails,
)

FORMAT = "kgrecall.linkpred"
FORMAT_VERSION = 1
#: Go/no-go thresholds of the spec for a link predictor worth using.
GO_MRR = 0.3
GO_HITS_AT_10 = 0.4
#: Above this many entities the "auto" training loop uses negative sampling (sLCWA).
LCWA_MAX_ENTITIES = 2_000
#: A validation MRR counts as better only when it beats the best by more than this fraction.
MIN_RELATIVE_IMPROVEMENT = 1e-3

_SPLITS = ("train", "valid", "test")

TripleLabels = tuple[str, str, str]
#: Scores of (anchor, relation) pairs against every entity: shape (batch, n_entities).
AllTails = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass(frozen=True, slots=True)
class TrainingConfig:
    """How to train. ``time_budget_s`` stops training (keeping the best weights so far)."""

    model: str = "RotatE"
    embedding_dim: int = 200
    training_loop: TrainingLoop = "auto"
    learning_rate: float = 0.01
    batch_size: int = 256
    max_epochs: int = 200
    eval_every: int = 10
    patience: int = 3
    label_smoothing: float = 0.1
    num_negatives: int = 32
    seed: int = 0
    time_budget_s: float | None = None
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1)
    model_kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RankMetrics:
    """Filtered rank metrics, both sides (head and tail prediction averaged)."""

    mrr: float
    hits_at_1: float
    hits_at_3: float
    hits_at_10: float
    n_triples: int

    @property
    def go(self) -> bool:
        """The spec's go/no-go: MRR ≥ 0.3 and Hits@10 ≥ 0.4."""
        return self.mrr >= GO_MRR and self.hits_at_10 >= GO_HITS_AT_10


@dataclass(frozen=True, slots=True)
class TrainingReport:
    """What training did and how good the result is."""

    model: str
    training_loop: str
    epochs: int
    best_epoch: int
    stopped_by: str
    seconds: float
    validation_mrr: list[tuple[int, float]]
    test: RankMetrics
    calibration_ece: float
    n_train: int
    n_valid: int
    n_test: int
    n_parameters: int


@dataclass(frozen=True, slots=True)
class Prediction:
    """One scored triple; ``known`` = in the KG the model was trained on (any split)."""

    head: str
    relation: str
    tail: str
    score: float
    probability: float
    known: bool
    inductive_proxy: bool = False


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed torch, numpy and ``random`` inside, and give the caller back its own states after.

    PyKEEN draws initial weights, negatives and batch order from the global generators and
    takes no ``torch.Generator`` for them, so training forks those states instead of replacing
    them. Training stays reproducible and the caller's next draws are the ones it would have got;
    a thread drawing from the global generators during training still shares their stream.
    """
    python_state, numpy_state = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=range(torch.cuda.device_count())):
        torch.manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        try:
            yield
        finally:
            random.setstate(python_state)
            np.random.set_state(numpy_state)


def _ignore_known_warnings() -> None:
    """Ignore the one warning PyKEEN raises on every sLCWA training whatever we pass.

    Its sLCWA loop always hands ``shuffle=True`` to its training instances, which call that
    argument deprecated (pykeen 1.11). Registered once at import, for this message from that
    module only: a ``catch_warnings`` block per call is process-wide, so it would also swallow
    other threads' warnings and race with them. The only other warning, torch's about pinned
    memory without CUDA, is avoided at its cause (:func:`_fit`); PyKEEN's INFO log lines are
    left to the application's logging configuration.
    """
    warnings.filterwarnings(
        "ignore",
        message=r"Training instances are always shuffled\.",
        category=DeprecationWarning,
        module=r"pykeen\.training\.slcwa\Z",
    )


_ignore_known_warnings()


def _normalise_model(name: str) -> str:
    key = name.lower().replace("-", "").replace("_", "")
    if key not in SUPPORTED_MODELS:
        raise LinkPredictorError(
            f"unknown link-prediction model {name!r}; valid: {', '.join(SUPPORTED_MODELS.values())}"
        )
    return key


def _as_complex(tensor: torch.Tensor) -> torch.Tensor:
    if tensor.is_complex():
        return tensor
    return torch.view_as_complex(tensor.reshape(*tensor.shape[:-1], -1, 2).contiguous())


def _representations(model: Any, model_key: str) -> tuple[torch.Tensor, torch.Tensor, Scorer]:
    """All entity and relation representations as plain tensors, and the model's scorer."""
    model.eval()
    with torch.no_grad():
        entity_repr = model.entity_representations[0](indices=None).detach()
        relation_repr = model.relation_representations[0](indices=None).detach()
    fast = FAST_SCORERS.get(model_key)
    if fast is None:
        interaction = model.interaction
        return entity_repr, relation_repr, lambda h, r, t: interaction(h=h, r=r, t=t)
    if model_key in ("rotate", "complex"):
        entity_repr, relation_repr = _as_complex(entity_repr), _as_complex(relation_repr)
    return entity_repr, relation_repr, fast(**_interaction_options(model))


def _interaction_options(model: Any) -> dict[str, Any]:
    interaction = model.interaction
    return {k: getattr(interaction, k) for k in ("p", "power_norm") if hasattr(interaction, k)}


def _all_tails_scorer(
    entity_repr: torch.Tensor,
    relation_repr: torch.Tensor,
    scorer: Scorer,
    model_key: str,
    options: dict[str, Any],
) -> AllTails:
    """Scores of (anchor, relation) index pairs against every entity: a matrix product where
    the model allows one (RotatE with p = 2, DistMult, ComplEx), else chunked broadcasting."""
    factory = ALL_TAILS_SCORERS.get(model_key)
    against_all = (factory(**options) if factory else None) or chunked_all_tails(scorer)

    def all_tails(anchors: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return against_all(entity_repr[anchors], relation_repr[relations], entity_repr)

    return all_tails


class LinkPredictor(CompletionModel):
    """A trained KG embedding model over one KG version, with calibrated fast scoring."""

    kg_version: str

    def __init__(
        self,
        *,
        model: Any,
        model_key: str,
        entities: list[str],
        entity_types: list[str],
        relations: list[str],
        known: torch.Tensor,
        kg_version: str,
        kg_name: str,
        config: TrainingConfig,
        platt: PlattScaling,
        report: TrainingReport,
    ) -> None:
        self.model = model
        self.model_key = model_key
        self.entities = entities
        self.entity_types = entity_types
        self.relations = relations
        self.entity_to_id = {entity: index for index, entity in enumerate(entities)}
        self.relation_to_id = {relation: index for index, relation in enumerate(relations)}
        self.kg_version = kg_version
        self.kg_name = kg_name
        self.config = config
        self.platt = platt
        self.report = report
        self._known_tensor = known
        self._known = {tuple(row) for row in known.tolist()}
        self.proxy_basis: dict[str, str] = {}
        self._cache_representations()

    # -- representations and raw scores ---------------------------------------------------
    def _cache_representations(self) -> None:
        self._entity_repr, self._relation_repr, self._scorer = _representations(
            self.model, self.model_key
        )

    def _relation_index(self, relation: str, *, inverse: bool = False) -> int:
        try:
            base = self.relation_to_id[relation]
        except KeyError:
            raise LinkPredictorError(
                f"unknown relation {relation!r}; the model knows: {', '.join(self.relations)}"
            ) from None
        return 2 * base + int(inverse)  # PyKEEN's layout with inverse relations

    def _entity_index(self, entity: str) -> int:
        index = self.entity_to_id.get(entity)
        if index is None:
            raise LinkPredictorError(
                f"unknown entity {entity!r}: not seen when the model was trained on KG version "
                f"{self.kg_version[:12]}; call add_inductive_entities(store) to give it a proxy "
                "embedding from its edges"
            )
        return index

    @torch.no_grad()
    def raw_scores(
        self, heads: torch.Tensor, relations: torch.Tensor, tails: torch.Tensor
    ) -> torch.Tensor:
        """Scores of index triples (relations in PyKEEN's internal, inverse-aware indexing)."""
        return self._scorer(
            self._entity_repr[heads], self._relation_repr[relations], self._entity_repr[tails]
        )

    def raw_scores_all_tails(self, heads: torch.Tensor, relations: torch.Tensor) -> torch.Tensor:
        """Scores against every entity, shape ``(len(heads), n_entities)``."""
        all_tails = _all_tails_scorer(
            self._entity_repr,
            self._relation_repr,
            self._scorer,
            self.model_key,
            _interaction_options(self.model),
        )
        return all_tails(heads, relations)

    @property
    def identifier(self) -> str:
        """Names this trained model: architecture, KG version and training settings.

        Calibrations are keyed by it, so retraining (other settings or another KG version)
        invalidates them.
        """
        settings = json.dumps(_config_to_dict(self.config), sort_keys=True, default=str)
        digest = hashlib.sha256(settings.encode()).hexdigest()[:8]
        return f"{SUPPORTED_MODELS[self.model_key]}:{self.kg_version[:12]}:{digest}"

    def bind(self, store: GraphStore, *, beam: int = 256) -> PairwiseBinding:
        """This model's set-level projection over ``store``'s entities (max–min over a beam)."""

        def probabilities(anchors: torch.Tensor, relation_index: int) -> torch.Tensor:
            relations = torch.full_like(anchors, relation_index)
            return self.platt(self.raw_scores_all_tails(anchors, relations))

        return PairwiseBinding(store, self.entities, self.relations, probabilities, beam=beam)

    # -- public scoring -------------------------------------------------------------------
    def score(self, triples: Sequence[TripleLabels]) -> list[Prediction]:
        """Calibrated probabilities for (head, relation, tail) labels."""
        if not triples:
            return []
        rows = [
            (self._entity_index(h), self._relation_index(r), self._entity_index(t))
            for h, r, t in triples
        ]
        ids = torch.tensor(rows, dtype=torch.long)
        scores = self.raw_scores(ids[:, 0], ids[:, 1], ids[:, 2])
        probabilities = self.platt(scores).tolist()
        proxies = self.proxy_basis
        return [
            Prediction(
                h,
                r,
                t,
                score,
                probability,
                known=(row[0], row[1] // 2, row[2]) in self._known,
                inductive_proxy=bool(proxies) and (h in proxies or t in proxies),
            )
            for (h, r, t), score, probability, row in zip(
                triples, scores.tolist(), probabilities, rows, strict=True
            )
        ]

    def predict_tails(
        self,
        heads: Sequence[str],
        relation: str,
        *,
        k: int | None = None,
        exclude_known: bool = False,
    ) -> list[list[Prediction]]:
        """For each head, the best ``k`` tails (all when ``k`` is None), best first."""
        return self._predict(heads, relation, k=k, exclude_known=exclude_known, inverse=False)

    def predict_heads(
        self,
        tails: Sequence[str],
        relation: str,
        *,
        k: int | None = None,
        exclude_known: bool = False,
    ) -> list[list[Prediction]]:
        """For each tail, the best ``k`` heads (scored through the inverse relation)."""
        return self._predict(tails, relation, k=k, exclude_known=exclude_known, inverse=True)

    def _predict(
        self,
        anchors: Sequence[str],
        relation: str,
        *,
        k: int | None,
        exclude_known: bool,
        inverse: bool,
    ) -> list[list[Prediction]]:
        if k is not None and k < 1:
            raise LinkPredictorError(f"k must be a positive number or None (all), got {k}")
        relation_index = self._relation_index(relation, inverse=inverse)
        base = relation_index // 2
        anchor_ids = torch.tensor([self._entity_index(a) for a in anchors], dtype=torch.long)
        scores = self.raw_scores_all_tails(anchor_ids, torch.full_like(anchor_ids, relation_index))
        probabilities = self.platt(scores)
        results: list[list[Prediction]] = []
        for row, anchor in enumerate(anchors):
            anchor_index = int(anchor_ids[row])
            order = torch.argsort(scores[row], descending=True).tolist()
            row_scores, row_probabilities = scores[row].tolist(), probabilities[row].tolist()
            predictions: list[Prediction] = []
            for other in order:
                triple = (other, base, anchor_index) if inverse else (anchor_index, base, other)
                known = triple in self._known
                if known and exclude_known:
                    continue
                other_label = self.entities[other]
                head, tail = (other_label, anchor) if inverse else (anchor, other_label)
                predictions.append(
                    Prediction(
                        head,
                        relation,
                        tail,
                        row_scores[other],
                        row_probabilities[other],
                        known=known,
                        inductive_proxy=head in self.proxy_basis or tail in self.proxy_basis,
                    )
                )
                if k is not None and len(predictions) >= k:
                    break
            results.append(predictions)
        return results

    # -- unseen entities ------------------------------------------------------------------
    def add_inductive_entities(
        self, store: GraphStore, entity_ids: Iterable[str] | None = None, *, steps: int = 100
    ) -> dict[str, str]:
        """Give entities the model never saw a proxy embedding; return id → how it was built.

        With edges to known entities (relations the model knows), the proxy maximises the
        model's scores of those edges (Adam, norm kept at the mean entity norm), starting from
        the neighbours' mean. Without such edges it is the mean embedding of known entities of
        the same node type, else of all entities. Predictions touching a proxy are flagged
        ``inductive_proxy``.
        """
        wanted = (
            [node.id for node in store.nodes() if node.id not in self.entity_to_id]
            if entity_ids is None
            else [e for e in entity_ids if e not in self.entity_to_id]
        )
        built: dict[str, str] = {}
        for entity in wanted:
            vector, basis = self._proxy_vector(store, entity, steps)
            self.entity_to_id[entity] = len(self.entities)
            self.entities.append(entity)
            self.entity_types.append(store.get_node(entity).type)
            self._entity_repr = torch.cat([self._entity_repr, vector.unsqueeze(0)])
            self.proxy_basis[entity] = basis
            built[entity] = basis
        return built

    def _proxy_vector(self, store: GraphStore, entity: str, steps: int) -> tuple[torch.Tensor, str]:
        constraints: list[tuple[int, int, bool]] = []  # (relation index, neighbour, entity is head)
        for edge in store.neighbors(entity, direction="both"):
            other = edge.tail if edge.head == entity else edge.head
            usable = other in self.entity_to_id and other not in self.proxy_basis
            if usable and edge.relation in self.relation_to_id:
                relation = self._relation_index(edge.relation)
                constraints.append((relation, self.entity_to_id[other], edge.head == entity))
        reference_norm = self._entity_repr.abs().pow(2).sum(-1).sqrt().mean()
        if not constraints:
            node_type = store.get_node(entity).type
            trained = range(len(self.entities) - len(self.proxy_basis))  # proxies come last
            same_type = [i for i in trained if self.entity_types[i] == node_type]
            rows = same_type or list(trained)
            basis = f"mean of {len(rows)} {node_type if same_type else 'known'} entities"
            return self._entity_repr[rows].mean(0), basis
        neighbours = torch.tensor([c[1] for c in constraints])
        relations = torch.tensor([c[0] for c in constraints])
        as_head = torch.tensor([c[2] for c in constraints])
        vector = self._entity_repr[neighbours].mean(0).clone().requires_grad_(True)
        optimizer = torch.optim.Adam([vector], lr=0.05)
        for _ in range(steps):
            optimizer.zero_grad()
            expanded = vector.unsqueeze(0).expand(len(constraints), -1)
            neighbour_repr = self._entity_repr[neighbours]
            heads = torch.where(as_head.unsqueeze(1), expanded, neighbour_repr)
            tails = torch.where(as_head.unsqueeze(1), neighbour_repr, expanded)
            loss = -self._scorer(heads, self._relation_repr[relations], tails).mean()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            with torch.no_grad():
                norm = vector.abs().pow(2).sum().sqrt().clamp_min(1e-12)
                vector.mul_(reference_norm / norm)
        return vector.detach(), f"fitted to {len(constraints)} edges"

    # -- evaluation -----------------------------------------------------------------------
    def evaluate(self, triples: Sequence[TripleLabels]) -> RankMetrics:
        """Filtered MRR and Hits@1/3/10 over both sides, filtering every known triple."""
        ids = torch.tensor(
            [
                (self._entity_index(h), self.relation_to_id[r], self._entity_index(t))
                for h, r, t in triples
            ],
            dtype=torch.long,
        )
        return _filtered_metrics(self.raw_scores_all_tails, ids, self._known_tensor)

    # -- persistence ----------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write weights, indexes, KG version, config, calibration and report atomically."""
        if self.proxy_basis:
            raise LinkPredictorError(
                "this predictor holds inductive proxies; save the model before adding them "
                "(proxies belong to one query session)"
            )
        payload = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "kg_version": self.kg_version,
            "kg_name": self.kg_name,
            "model_key": self.model_key,
            "config": _config_to_dict(self.config),
            "entities": self.entities,
            "entity_types": self.entity_types,
            "relations": self.relations,
            "known": self._known_tensor,
            "state_dict": self.model.state_dict(),
            "platt": [self.platt.slope, self.platt.intercept],
            "report": _report_to_dict(self.report),
        }
        buffer = io.BytesIO()
        torch.save(payload, buffer)
        target = Path(path)
        atomic_write_bytes(target, buffer.getvalue())
        return target

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        kg_version: str | None = None,
        allow_version_mismatch: bool = False,
    ) -> LinkPredictor:
        """Load a saved predictor; refuse one trained on another KG version unless allowed."""
        source = Path(path)
        try:
            payload = torch.load(source, map_location="cpu", weights_only=True)
        except FileNotFoundError:
            raise LinkPredictorError(f"{source}: no such model file") from None
        except Exception as error:
            raise LinkPredictorError(f"{source}: not a readable model file ({error})") from None
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise LinkPredictorError(f"{source}: not a kgrecall link-predictor file")
        if payload.get("format_version") != FORMAT_VERSION:
            raise LinkPredictorError(
                f"{source}: unsupported format_version {payload.get('format_version')!r}"
            )
        if (
            kg_version is not None
            and payload["kg_version"] != kg_version
            and not allow_version_mismatch
        ):
            raise LinkPredictorError(
                f"{source}: trained on KG version {payload['kg_version'][:12]}, but the KG "
                f"is version {kg_version[:12]}; retrain (kgrecall train) or pass "
                "allow_version_mismatch=True to use it anyway"
            )
        config = _config_from_dict(payload["config"])
        with _seeded(config.seed):  # the initial weights are overwritten, the caller's RNG kept
            model = _make_model(
                payload["model_key"],
                config,
                num_entities=len(payload["entities"]),
                num_relations=len(payload["relations"]),
                mapped_triples=payload["known"],
            )
        model.load_state_dict(payload["state_dict"])
        slope, intercept = payload["platt"]
        return cls(
            model=model,
            model_key=payload["model_key"],
            entities=list(payload["entities"]),
            entity_types=list(payload["entity_types"]),
            relations=list(payload["relations"]),
            known=payload["known"],
            kg_version=payload["kg_version"],
            kg_name=payload["kg_name"],
            config=config,
            platt=PlattScaling(slope, intercept),
            report=_report_from_dict(payload["report"]),
        )

    # -- training -------------------------------------------------------------------------
    @classmethod
    def train(
        cls,
        store: GraphStore,
        config: TrainingConfig | None = None,
        *,
        splits: dict[str, Sequence[TripleLabels]] | None = None,
        progress: bool = True,
    ) -> LinkPredictor:
        """Train on ``store``'s triples.

        Splits: ``splits`` when given (keys train/valid/test), else the edges'
        ``properties["split"]`` when every edge has one (PyKEEN datasets), else a seeded
        random split by ``config.split_ratios`` that keeps every entity in training.
        ``config.seed`` makes training reproducible; the caller's global random state (torch,
        numpy, ``random``) is the same afterwards as before.
        """
        settings = config or TrainingConfig()
        model_key = _normalise_model(settings.model)
        if settings.max_epochs < 1 or settings.eval_every < 1 or settings.embedding_dim < 1:
            raise LinkPredictorError("max_epochs, eval_every and embedding_dim must be positive")
        split = _resolve_splits(store, settings, splits)
        parts, entities, relations = _index([split[name] for name in _SPLITS])
        mapped = dict(zip(_SPLITS, parts, strict=True))
        known = torch.unique(torch.cat(parts), dim=0)
        with _seeded(settings.seed):
            model, loop_name, history, best_epoch, epochs, stopped_by, seconds = _fit(
                model_key, settings, mapped, known, len(entities), len(relations), progress
            )
        predictor = cls(
            model=model,
            model_key=model_key,
            entities=entities,
            entity_types=[store.get_node(e).type for e in entities],
            relations=relations,
            known=known,
            kg_version=store.version,
            kg_name=store.metadata.name,
            config=settings,
            platt=PlattScaling(1.0, 0.0),
            report=TrainingReport(
                SUPPORTED_MODELS[model_key], loop_name, epochs, best_epoch, stopped_by, seconds,
                history, RankMetrics(0, 0, 0, 0, 0), math.nan,
                len(mapped["train"]), len(mapped["valid"]), len(mapped["test"]),
                sum(p.numel() for p in model.parameters()),
            ),
        )  # fmt: skip
        generator = torch.Generator().manual_seed(settings.seed)
        scores, labels = _labelled_scores(predictor, mapped["valid"], generator)
        predictor.platt = PlattScaling.fit(scores, labels)
        test_scores, test_labels = _labelled_scores(predictor, mapped["test"], generator)
        ece = expected_calibration_error(predictor.platt(test_scores), test_labels)
        test = _filtered_metrics(predictor.raw_scores_all_tails, mapped["test"], known)
        predictor.report = _replace_report(predictor.report, test=test, calibration_ece=ece)
        return predictor


# -- training internals ----------------------------------------------------------------------
def _resolve_splits(
    store: GraphStore, settings: TrainingConfig, given: dict[str, Sequence[TripleLabels]] | None
) -> dict[str, list[TripleLabels]]:
    if given is not None:
        missing = {"train", "valid", "test"} - set(given)
        if missing:
            raise LinkPredictorError(f"splits lack {', '.join(sorted(missing))}")
        split: dict[str, list[TripleLabels]] = {
            name: [(h, r, t) for h, r, t in given[name]] for name in _SPLITS
        }
    else:
        edges = list(store.edges())
        if not edges:
            raise LinkPredictorError(f"KG {store.metadata.name!r} has no edges to train on")
        tagged = [e.properties.get("split") for e in edges]
        if all(tag in ("train", "valid", "test") for tag in tagged):
            split = _cleanup(
                {
                    name: [e.triple for e in edges if e.properties["split"] == name]
                    for name in _SPLITS
                }
            )
        else:
            split = _random_split([e.triple for e in edges], settings.split_ratios, settings.seed)
    for name, part in split.items():
        if not part:
            raise LinkPredictorError(
                f"the {name} split is empty ({sum(len(p) for p in split.values())} triples in "
                "all): a link predictor needs training, validation and test triples"
            )
    train_entities = {e for h, _, t in split["train"] for e in (h, t)}
    train_relations = {r for _, r, _ in split["train"]}
    if len(train_entities) < 2:
        raise LinkPredictorError("the training split has fewer than two entities")
    for name in ("valid", "test"):
        unseen = [
            t
            for t in split[name]
            if t[0] not in train_entities
            or t[2] not in train_entities
            or t[1] not in train_relations
        ]
        if unseen:
            raise LinkPredictorError(
                f"{len(unseen)} {name} triples use entities or relations absent from training, "
                f"e.g. {unseen[0]}"
            )
    return split


def _cleanup(split: dict[str, list[TripleLabels]]) -> dict[str, list[TripleLabels]]:
    """Move valid/test triples whose entity or relation training lacks into training.

    Tagged splits lose training triples when edges are removed (a reduced calibration graph,
    an imported subset). PyKEEN's ``DeterministicCleaner``, the default of its "cleanup"
    split: valid is cleaned against training, then test against training plus what moved.
    """
    from pykeen.triples.splitting import DeterministicCleaner

    parts, entities, relations = _index([split[name] for name in _SPLITS])
    cleaned = DeterministicCleaner()(parts, random_state=None)
    return {
        name: _labels(part, entities, relations)
        for name, part in zip(_SPLITS, cleaned, strict=True)
    }


def _random_split(
    triples: list[TripleLabels], ratios: tuple[float, float, float], seed: int
) -> dict[str, list[TripleLabels]]:
    """Seeded split whose training part holds every entity and relation.

    PyKEEN's "coverage" splitter: a greedy cover of all entities and relations goes to
    training, the other triples are split by ``ratios``, so the sizes are the ones asked for
    ("cleanup" instead left 6 % each for valid and test of MONDO, asked 10 %). Where the cover
    alone outgrows the training share (graphs about as sparse as a forest), PyKEEN's
    "cleanup" splitter: valid/test triples with entities training lacks move into training,
    so valid and test come out smaller (PyKEEN logs by how much).
    """
    from pykeen.triples.splitting import split

    if len(ratios) != 3 or any(r <= 0 for r in ratios) or not math.isclose(sum(ratios), 1.0):
        raise LinkPredictorError(
            f"split_ratios must be three positive numbers summing to 1, got {ratios}"
        )
    if len(triples) < 10:
        raise LinkPredictorError(f"only {len(triples)} triples: too few to train and evaluate")
    (mapped,), entities, relations = _index([sorted(triples)])
    # A generator, not ``random_state=seed``: PyKEEN turns an int into torch.manual_seed(seed).
    try:
        parts = split(
            mapped,
            ratios=ratios,
            random_state=torch.Generator().manual_seed(seed),
            method="coverage",
        )
    except ValueError:  # "Could not find a coverage of all entities and relation with only …"
        parts = split(
            mapped,
            ratios=ratios,
            random_state=torch.Generator().manual_seed(seed),
            method="cleanup",
        )
    return {
        name: _labels(part, entities, relations) for name, part in zip(_SPLITS, parts, strict=True)
    }


def _index(
    parts: Sequence[Sequence[TripleLabels]],
) -> tuple[list[torch.Tensor], list[str], list[str]]:
    """The parts as id triples, shape (n, 3), over the sorted entity and relation labels."""
    entities = sorted({e for part in parts for h, _, t in part for e in (h, t)})
    relations = sorted({r for part in parts for _, r, _ in part})
    entity_to_id = {e: i for i, e in enumerate(entities)}
    relation_to_id = {r: i for i, r in enumerate(relations)}
    mapped = [
        torch.tensor(
            [(entity_to_id[h], relation_to_id[r], entity_to_id[t]) for h, r, t in part],
            dtype=torch.long,
        ).reshape(-1, 3)
        for part in parts
    ]
    return mapped, entities, relations


def _labels(mapped: torch.Tensor, entities: list[str], relations: list[str]) -> list[TripleLabels]:
    """Id triples back as labels (inverse of :func:`_index`)."""
    return [(entities[h], relations[r], entities[t]) for h, r, t in mapped.tolist()]


def _triples_factory(mapped_triples: torch.Tensor, num_entities: int, num_relations: int) -> Any:
    from pykeen.triples import CoreTriplesFactory

    return CoreTriplesFactory(
        mapped_triples=mapped_triples,
        num_entities=num_entities,
        num_relations=num_relations,
        create_inverse_triples=True,
    )


def _loop_name(settings: TrainingConfig, num_entities: int) -> str:
    if settings.training_loop != "auto":
        return settings.training_loop
    return "lcwa" if num_entities <= LCWA_MAX_ENTITIES else "slcwa"


def _make_model(
    model_key: str,
    settings: TrainingConfig,
    *,
    num_entities: int,
    num_relations: int,
    mapped_triples: torch.Tensor,
    loss: str | None = None,
) -> Any:
    """The PyKEEN model, initialised from ``settings.seed``; call it inside :func:`_seeded`
    (PyKEEN's ``random_seed`` seeds the global generators)."""
    from pykeen.models import model_resolver

    factory = _triples_factory(mapped_triples, num_entities, num_relations)
    kwargs: dict[str, Any] = {"embedding_dim": settings.embedding_dim, **settings.model_kwargs}
    if loss is not None:
        kwargs["loss"] = loss
    return model_resolver.make(
        SUPPORTED_MODELS[model_key], triples_factory=factory, random_seed=settings.seed, **kwargs
    )


def _fit(
    model_key: str,
    settings: TrainingConfig,
    mapped: dict[str, torch.Tensor],
    known: torch.Tensor,
    num_entities: int,
    num_relations: int,
    progress: bool,
) -> tuple[Any, str, list[tuple[int, float]], int, int, str, float]:
    """Train in chunks of ``eval_every`` epochs, validate after each, keep the best weights.

    Patience and the best epoch are PyKEEN's ``EarlyStoppingLogic``, which its
    ``EarlyStopper`` decides with. The stopper itself is not used, for its validation:
    ``RankBasedEvaluator`` on 1,000 validation triples of a 7,000-entity graph took 48 s for
    RotatE (dim 200, 2 CPU cores) against 0.6 s through the fast scorer
    (:func:`_validation_mrr`), TuckER 13.6 s against 4.9 s, UMLS 1.9 s against 0.5 s. That is
    ~2 % of a 10-epoch chunk there (an sLCWA epoch took ~290 s), but a validation also runs
    after the time budget is spent, so a 3-minute budget would overrun by a minute. The
    stopper also keeps the best weights in a file under ``~/.data/pykeen``, restores them only
    on early stopping, and knows no time budget (a PyKEEN callback checks it after each batch).
    """
    from pykeen.stoppers.early_stopping import EarlyStoppingLogic
    from pykeen.training import LCWATrainingLoop, SLCWATrainingLoop

    loop_name = _loop_name(settings, num_entities)
    model = _make_model(
        model_key,
        settings,
        num_entities=num_entities,
        num_relations=num_relations,
        mapped_triples=mapped["train"],
        loss="crossentropy" if loop_name == "lcwa" else "nssa",
    )
    factory = _triples_factory(mapped["train"], num_entities, num_relations)
    optimizer = torch.optim.Adam(model.get_grad_params(), lr=settings.learning_rate)
    # Pinned memory only helps with CUDA; elsewhere torch warns that it cannot pin. PyKEEN's
    # memory probe (sub-batch sizes against CUDA out-of-memory errors) pins whatever
    # ``pin_memory`` says, so it is off without CUDA too.
    on_cuda = model.device.type == "cuda"
    loop_kwargs: dict[str, Any] = {
        "model": model,
        "triples_factory": factory,
        "optimizer": optimizer,
        "automatic_memory_optimization": on_cuda,
    }
    if loop_name == "lcwa":
        loop: Any = LCWATrainingLoop(**loop_kwargs)
        train_kwargs: dict[str, Any] = {"label_smoothing": settings.label_smoothing}
    else:
        loop = SLCWATrainingLoop(
            **loop_kwargs, negative_sampler_kwargs={"num_negs_per_pos": settings.num_negatives}
        )
        train_kwargs = {}
    start = time.perf_counter()
    deadline = None if settings.time_budget_s is None else start + settings.time_budget_s
    history: list[tuple[int, float]] = []
    best_state: dict[str, torch.Tensor] | None = None
    stopper = EarlyStoppingLogic(
        patience=settings.patience, relative_delta=MIN_RELATIVE_IMPROVEMENT
    )
    epoch = 0
    stopped_by = "max_epochs"
    bar = tqdm(
        total=settings.max_epochs,
        desc=f"train {SUPPORTED_MODELS[model_key]}",
        unit="epoch",
        disable=not progress,
    )
    while epoch < settings.max_epochs:
        target = min(epoch + settings.eval_every, settings.max_epochs)
        model.train()
        spent = False
        try:
            loop.train(
                triples_factory=factory,
                num_epochs=target,
                batch_size=settings.batch_size,
                continue_training=epoch > 0,
                use_tqdm=False,
                pin_memory=on_cuda,
                callbacks=_deadline_callback(deadline),
                **train_kwargs,
            )
        except _BudgetSpentError:
            spent = True
        done = loop._epoch if spent else target  # the epochs finished in full
        bar.update(done - epoch)
        epoch = done
        if spent and history and epoch == history[-1][0]:
            stopped_by = "time_budget"  # nothing trained since the last validation
            break
        mrr = _validation_mrr(model, model_key, mapped["valid"], known)
        history.append((epoch, mrr))
        patience_spent = stopper.report_result(mrr, epoch)
        bar.set_postfix(valid_mrr=f"{mrr:.3f}", best=f"{stopper.best_metric:.3f}")
        if stopper.is_best:
            best_state = copy.deepcopy(model.state_dict())
        elif patience_spent:
            stopped_by = "early_stopping"
            break
        if spent:
            stopped_by = "time_budget"
            break
        elapsed = time.perf_counter() - start
        per_chunk = elapsed / len(history)
        if settings.time_budget_s is not None and elapsed + per_chunk > settings.time_budget_s:
            stopped_by = "time_budget" if epoch < settings.max_epochs else stopped_by
            break
    bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    best_epoch = stopper.best_epoch or 0
    return model, loop_name, history, best_epoch, epoch, stopped_by, time.perf_counter() - start


class _BudgetSpentError(Exception):
    """Raised inside a PyKEEN training loop when the wall-time budget is spent (not a
    RuntimeError, which PyKEEN would treat as a failed epoch)."""


def _deadline_callback(deadline: float | None) -> Any:
    """A PyKEEN callback that stops training after the batch that passes ``deadline``, so a
    time budget holds to about one batch instead of ``eval_every`` epochs."""
    from pykeen.training.callbacks import TrainingCallback

    class DeadlineCallback(TrainingCallback):
        def post_batch(self, epoch: int, batch: Any, **kwargs: Any) -> None:
            if deadline is not None and time.perf_counter() > deadline:
                raise _BudgetSpentError

    return DeadlineCallback()  # type: ignore[no-untyped-call]


def _validation_mrr(
    model: Any, model_key: str, triples: torch.Tensor, known: torch.Tensor
) -> float:
    """Filtered MRR on (at most 1,000 of) the validation triples, through the fast scorer."""
    sample = triples[:: max(1, len(triples) // 1000)]
    entities, relations, scorer = _representations(model, model_key)
    options = _interaction_options(model)
    all_tails = _all_tails_scorer(entities, relations, scorer, model_key, options)
    return _filtered_metrics(all_tails, sample, known).mrr


def _filtered_metrics(
    all_tails: AllTails, triples: torch.Tensor, known: torch.Tensor
) -> RankMetrics:
    """Filtered, realistic ranks on both sides through the predictor's own fast scorer."""
    known_tails: dict[tuple[int, int], set[int]] = {}
    known_heads: dict[tuple[int, int], set[int]] = {}
    for h, r, t in known.tolist():
        known_tails.setdefault((h, r), set()).add(t)
        known_heads.setdefault((t, r), set()).add(h)
    reciprocal: list[float] = []
    hits = {1: 0, 3: 0, 10: 0}
    for start in range(0, len(triples), 256):
        batch = triples[start : start + 256]
        for inverse in (False, True):
            anchors = batch[:, 2] if inverse else batch[:, 0]
            targets = batch[:, 0] if inverse else batch[:, 2]
            relations = 2 * batch[:, 1] + int(inverse)
            scores = all_tails(anchors, relations).clone()
            for row in range(len(batch)):
                anchor, relation, target = int(anchors[row]), int(batch[row, 1]), int(targets[row])
                filtered = (known_heads if inverse else known_tails).get((anchor, relation), set())
                own = scores[row, target].item()
                others = [e for e in filtered if e != target]
                if others:
                    scores[row, others] = -math.inf
                greater = int((scores[row] > own).sum())
                equal = int((scores[row] == own).sum()) - 1
                rank = greater + 1 + equal / 2  # "realistic": expected rank among ties
                reciprocal.append(1.0 / rank)
                for k in hits:
                    hits[k] += rank <= k
    n = len(reciprocal)
    return RankMetrics(sum(reciprocal) / n, hits[1] / n, hits[3] / n, hits[10] / n, len(triples))


def _labelled_scores(
    predictor: LinkPredictor, triples: torch.Tensor, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Scores of triples (both directions) and of as many filtered random corruptions."""
    known = predictor._known
    n_entities = len(predictor.entities)
    heads, relations, tails = triples[:, 0], triples[:, 1], triples[:, 2]
    positive = torch.cat(
        [
            predictor.raw_scores(heads, 2 * relations, tails),
            predictor.raw_scores(tails, 2 * relations + 1, heads),
        ]
    )
    corrupted = []
    for h, r, _ in triples.tolist():
        for _attempt in range(100):
            other = int(torch.randint(n_entities, (1,), generator=generator))
            if (h, r, other) not in known:
                corrupted.append((h, r, other))
                break
    if not corrupted:
        raise LinkPredictorError("could not sample negative triples: the graph is complete")
    negatives = torch.tensor(corrupted, dtype=torch.long)
    negative = torch.cat(
        [
            predictor.raw_scores(negatives[:, 0], 2 * negatives[:, 1], negatives[:, 2]),
            predictor.raw_scores(negatives[:, 2], 2 * negatives[:, 1] + 1, negatives[:, 0]),
        ]
    )
    scores = torch.cat([positive, negative])
    labels = torch.cat([torch.ones_like(positive), torch.zeros_like(negative)])
    return scores, labels


# -- (de)serialisation of plain records ------------------------------------------------------
def _config_to_dict(config: TrainingConfig) -> dict[str, Any]:
    return asdict(config)


def _config_from_dict(record: dict[str, Any]) -> TrainingConfig:
    values = dict(record)
    values["split_ratios"] = tuple(values["split_ratios"])
    return TrainingConfig(**values)


def _report_to_dict(report: TrainingReport) -> dict[str, Any]:
    return asdict(report)


def _report_from_dict(record: dict[str, Any]) -> TrainingReport:
    values = dict(record)
    values["test"] = RankMetrics(**values["test"])
    values["validation_mrr"] = [tuple(item) for item in values["validation_mrr"]]
    return TrainingReport(**values)


def _replace_report(report: TrainingReport, **changes: Any) -> TrainingReport:
    values = {**asdict(report), **changes}
    values["validation_mrr"] = report.validation_mrr
    return TrainingReport(**values)
