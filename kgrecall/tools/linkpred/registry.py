"""Completion models by name, PyKEEN-style: ``model="ultra"`` or ``model="RotatE"``.

Two families share the :class:`~kgrecall.tools.linkpred.base.CompletionModel` interface:

- **ULTRA** (``ultra`` = ``ultra_50g``, ``ultra_4g``): pretrained weights shipped in the
  package; zero-shot on any graph (no training, nothing to redo when the KG changes), or
  fine-tuned on one KG version (``kgrecall train --model ultra``), which is then bound to it.
- **KG embeddings** (``RotatE``, ``ComplEx``, ``TransE``, ``DistMult``, ``TuckER``): trained
  per KG version with PyKEEN; none exists until ``kgrecall train`` saved one.

:func:`load_completion_model` is what the service uses: the saved model of that name when one
exists for this KG version, else the zero-shot ULTRA, else None. :func:`refit` is what
calibration uses: the same recipe on a reduced graph, so that the model scoring a calibration
stratum has not seen the edges that stratum hides (a zero-shot model is returned unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgrecall.kg import GraphStore
from kgrecall.tools.linkpred.base import CompletionModel
from kgrecall.tools.linkpred.predictor import (
    SUPPORTED_MODELS,
    LinkPredictor,
    LinkPredictorError,
)
from kgrecall.tools.linkpred.ultra import UltraCompletion, fine_tune

#: ULTRA names → the shipped checkpoint each one loads.
ULTRA_MODELS: dict[str, str] = {
    "ultra": "ultra_50g",
    "ultra_50g": "ultra_50g",
    "ultra_4g": "ultra_4g",
}
#: The model the service uses when none is named (see README: why ULTRA).
DEFAULT_MODEL = "ultra"


def model_names() -> list[str]:
    """Every name :func:`load_completion_model` accepts."""
    return [*ULTRA_MODELS, *SUPPORTED_MODELS.values()]


def canonical_name(name: str) -> str:
    """The registry's spelling of ``name`` (case-insensitive); a clear error when unknown."""
    key = name.strip().lower().replace("-", "_")
    if key in ULTRA_MODELS:
        return key
    embedding = SUPPORTED_MODELS.get(key.replace("_", ""))
    if embedding is None:
        raise LinkPredictorError(
            f"unknown completion model {name!r}; valid: {', '.join(model_names())}"
        )
    return embedding


def is_ultra(name: str) -> bool:
    """Whether ``name`` is an ULTRA model (usable zero-shot, without training)."""
    return canonical_name(name) in ULTRA_MODELS


def pretrained(name: str) -> UltraCompletion:
    """The zero-shot ULTRA model ``name`` from the checkpoint shipped in the package."""
    canonical = canonical_name(name)
    if canonical not in ULTRA_MODELS:
        raise LinkPredictorError(f"{name!r} has no pretrained weights; train it (kgrecall train)")
    return UltraCompletion.from_pretrained(ULTRA_MODELS[canonical])


def load_completion_model(name: str, path: Path, store: GraphStore) -> CompletionModel | None:
    """The model ``name`` for ``store``: the one saved at ``path`` (refused when trained on
    another KG version), else the zero-shot ULTRA for ULTRA names, else None."""
    canonical = canonical_name(name)
    if canonical in ULTRA_MODELS:
        if not path.is_file():
            return pretrained(canonical)
        tuned = UltraCompletion.load(path)
        if tuned.kg_version is not None and tuned.kg_version != store.version:
            raise LinkPredictorError(
                f"{path}: fine-tuned on KG version {tuned.kg_version[:12]}, but the KG is "
                f"version {store.version[:12]}; fine-tune again (kgrecall train --model "
                f"{canonical}) or delete the file to use the zero-shot model"
            )
        return tuned
    return LinkPredictor.load(path, kg_version=store.version) if path.is_file() else None


def refit(
    model: CompletionModel, store: GraphStore, *, say: Callable[[str], None] = print
) -> CompletionModel:
    """``model``'s recipe applied to ``store`` (a reduced calibration graph).

    Zero-shot models have seen no edge of any KG version and come back unchanged; a
    fine-tuned ULTRA is fine-tuned again from its pretrained weights for the same wall time;
    a KG embedding is retrained with its training configuration.
    """
    if model.kg_version is None:
        return model
    if isinstance(model, UltraCompletion):
        budget = model.report.seconds if model.report else 60.0
        say(f"fine-tuning {model.name} on the reduced graph ({budget:.0f} s)")
        base = UltraCompletion.from_pretrained(model.name, set_threshold=model.set_threshold)
        return fine_tune(base, store, budget_s=budget, progress=False)
    if isinstance(model, LinkPredictor):
        say(f"training {model.config.model} on the reduced graph")
        return LinkPredictor.train(store, model.config)
    raise LinkPredictorError(f"cannot refit a {type(model).__name__} on another graph")
