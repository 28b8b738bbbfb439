"""Completion models by name, PyKEEN-style: ``model="ultra+rules"`` or ``model="RotatE"``.

Three families share the :class:`~kgrecall.tools.linkpred.base.CompletionModel` interface:

- **ULTRA** (``ultra`` = ``ultra_50g``, ``ultra_4g``): pretrained weights shipped in the
  package; zero-shot on any graph (no training, nothing to redo when the KG changes), or
  fine-tuned on one KG version (``kgrecall train --model ultra``), which is then bound to it.
- **Path rules** (``rules``): mined from whatever graph the model is bound to; nothing to train.
- **Ensembles** (``ultra+rules``, the default): the rules, with ULTRA ordering what no rule
  reaches (noisy-or); its ULTRA member is fine-tuned and saved like ``ultra``'s.
- **KG embeddings** (``RotatE``, ``ComplEx``, ``TransE``, ``DistMult``, ``TuckER``): trained
  per KG version with PyKEEN; none exists until ``kgrecall train`` saved one.

:func:`load_completion_model` is what the service uses: the saved model of that name when one
exists for this KG version, else the untrained form (zero-shot ULTRA, rules, their ensemble),
else None. :func:`refit` is what calibration uses: the same recipe on a reduced graph, so that
the model scoring a calibration stratum has not seen the edges that stratum hides (a model
with nothing trained on the KG is returned unchanged).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from kgrecall.kg import GraphStore
from kgrecall.tools.linkpred.base import CompletionModel, LinkPredictorError
from kgrecall.tools.linkpred.defaults import DEFAULT_MODEL as DEFAULT_MODEL
from kgrecall.tools.linkpred.defaults import SUPPORTED_MODELS
from kgrecall.tools.linkpred.ensemble import Combination, EnsembleCompletion
from kgrecall.tools.linkpred.rules import RuleCompletion

# ULTRA and the KG embeddings are torch modules: imported where a model is loaded, so that
# naming models (and serving the retrieval-only level) never imports torch.

#: ULTRA names → the shipped checkpoint each one loads.
ULTRA_MODELS: dict[str, str] = {
    "ultra": "ultra_50g",
    "ultra_50g": "ultra_50g",
    "ultra_4g": "ultra_4g",
}
#: Models mined from the bound graph, with nothing to train.
RULE_MODELS = ("rules",)


class EnsembleRecipe(NamedTuple):
    """An ensemble's (member name, weight) pairs — the first member carries the saved
    weights — and how their probabilities combine."""

    members: tuple[tuple[str, float], ...]
    combination: Combination


#: Ensembles by name. ``ultra+rules`` keeps the rules' ranking and lets ULTRA order what no
#: rule reaches (noisy-or, ULTRA at 0.03): on the demo KG's 1p calibration sets that gave 79
#: entities on average at target 0.8 against 124 for the 0.3 / 0.7 average (and 259 vs 409
#: at 0.9; 100 / 285 with ULTRA at 0.1, 79 / 262 at 0.01). On another split (seed 10) 0.03
#: was best too: 92 / 327 against 116 / 387 at 0.01 and 99 / 456 at 0.1.
ENSEMBLES: dict[str, EnsembleRecipe] = {
    "ultra+rules": EnsembleRecipe((("ultra", 0.03), ("rules", 1.0)), "noisy-or"),
}


def model_names() -> list[str]:
    """Every name :func:`load_completion_model` accepts."""
    return [*ULTRA_MODELS, *RULE_MODELS, *ENSEMBLES, *SUPPORTED_MODELS.values()]


def canonical_name(name: str) -> str:
    """The registry's spelling of ``name`` (case-insensitive); a clear error when unknown."""
    key = name.strip().lower().replace("-", "_").replace(" ", "")
    if key in ULTRA_MODELS or key in RULE_MODELS or key in ENSEMBLES:
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


def ultra_member(name: str) -> str | None:
    """The ULTRA model that ``kgrecall train --model name`` fine-tunes, if any."""
    canonical = canonical_name(name)
    if canonical in ULTRA_MODELS:
        return canonical
    recipe = ENSEMBLES.get(canonical)
    return next((m for m, _ in recipe.members if m in ULTRA_MODELS), None) if recipe else None


def needs_training(name: str) -> bool:
    """Whether ``name`` is unusable until ``kgrecall train`` saved it (KG embeddings)."""
    return canonical_name(name) in SUPPORTED_MODELS.values()


def pretrained(name: str, *, cache_home: Path | None = None) -> CompletionModel:
    """The untrained form of ``name``: zero-shot ULTRA from the checkpoint shipped in the
    package, the rule miner, or their ensemble (``cache_home``: where the rule miner keeps
    what it mined, see :class:`RuleCompletion`)."""
    from kgrecall.tools.linkpred.ultra import UltraCompletion

    canonical = canonical_name(name)
    if canonical in ULTRA_MODELS:
        return UltraCompletion.from_pretrained(ULTRA_MODELS[canonical])
    if canonical in RULE_MODELS:
        return RuleCompletion(cache_home=cache_home)
    if canonical in ENSEMBLES:
        members, combination = ENSEMBLES[canonical]
        return EnsembleCompletion(
            [pretrained(m, cache_home=cache_home) for m, _ in members],
            [w for _, w in members],
            combination,
        )
    raise LinkPredictorError(f"{name!r} has no pretrained weights; train it (kgrecall train)")


def load_completion_model(
    name: str, path: Path, store: GraphStore, *, cache_home: Path | None = None
) -> CompletionModel | None:
    """The model ``name`` for ``store``: the one saved at ``path`` (refused when trained on
    another KG version), else its untrained form, else None (a KG embedding not trained);
    ``cache_home`` as for :func:`pretrained`."""
    from kgrecall.tools.linkpred.predictor import LinkPredictor
    from kgrecall.tools.linkpred.ultra import UltraCompletion

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
    if canonical in RULE_MODELS:
        if path.is_file():
            return RuleCompletion.load(path, cache_home=cache_home)
        return RuleCompletion(cache_home=cache_home)
    if canonical in ENSEMBLES:
        ((first, first_weight), *rest), combination = ENSEMBLES[canonical]
        loaded = load_completion_model(first, path, store, cache_home=cache_home)
        assert loaded is not None  # ULTRA and rules always load
        members = [loaded, *(pretrained(m, cache_home=cache_home) for m, _ in rest)]
        return EnsembleCompletion(members, [first_weight, *(w for _, w in rest)], combination)
    return LinkPredictor.load(path, kg_version=store.version) if path.is_file() else None


def load_like(model: CompletionModel, path: Path, kg_version: str) -> CompletionModel:
    """A model of ``model``'s kind read back from ``path`` (written by its ``save``) —
    how calibration reloads the stratum models it cached."""
    from kgrecall.tools.linkpred.predictor import LinkPredictor
    from kgrecall.tools.linkpred.ultra import UltraCompletion

    if isinstance(model, UltraCompletion):
        return UltraCompletion.load(path)
    if isinstance(model, RuleCompletion):
        return RuleCompletion.load(path, cache_home=model.cache_home)
    if isinstance(model, EnsembleCompletion):
        first = load_like(model.members[0], path, kg_version)
        return model.with_members([first, *model.members[1:]])
    if isinstance(model, LinkPredictor):
        return LinkPredictor.load(path, kg_version=kg_version)
    raise LinkPredictorError(f"cannot reload a {type(model).__name__}")


def refit(
    model: CompletionModel, store: GraphStore, *, say: Callable[[str], None] = print
) -> CompletionModel:
    """``model``'s recipe applied to ``store`` (a reduced calibration graph).

    Models with nothing trained on the KG come back unchanged; a fine-tuned ULTRA is
    fine-tuned again from its pretrained weights for the same wall time; a KG embedding is
    retrained with its training configuration; an ensemble refits its members.
    """
    from kgrecall.tools.linkpred.predictor import LinkPredictor
    from kgrecall.tools.linkpred.ultra import UltraCompletion, fine_tune

    if model.kg_version is None:
        return model
    if isinstance(model, EnsembleCompletion):
        return model.with_members([refit(m, store, say=say) for m in model.members])
    if isinstance(model, UltraCompletion):
        budget = model.report.seconds if model.report else 60.0
        say(f"fine-tuning {model.name} on the reduced graph ({budget:.0f} s)")
        base = UltraCompletion.from_pretrained(model.name, set_threshold=model.set_threshold)
        return fine_tune(base, store, budget_s=budget, progress=False)
    if isinstance(model, LinkPredictor):
        say(f"training {model.config.model} on the reduced graph")
        return LinkPredictor.train(store, model.config)
    raise LinkPredictorError(f"cannot refit a {type(model).__name__} on another graph")


def retrain_if_stale(
    name: str, path: Path, store: GraphStore, *, say: Callable[[str], None] = print
) -> CompletionModel | None:
    """After the KG changed: the model saved at ``path`` for ``name``, when it was trained on
    another KG version, retrained by its own recipe on ``store`` and saved over it (a
    transductive model cannot score the new version). None when nothing needed retraining:
    no saved model, or one that is zero-shot or already of this version."""
    from kgrecall.tools.linkpred.predictor import LinkPredictor
    from kgrecall.tools.linkpred.ultra import UltraCompletion

    if not path.is_file():
        return None
    canonical = canonical_name(name)
    saved: CompletionModel
    if ultra_member(canonical) is not None:
        saved = UltraCompletion.load(path)
    elif needs_training(canonical):
        saved = LinkPredictor.load(path, allow_version_mismatch=True)
    else:
        return None
    if saved.kg_version is None or saved.kg_version == store.version:
        return None
    say(
        f"{canonical} was trained on KG version {saved.kg_version[:12]}; retraining it on "
        f"version {store.version[:12]} first (a transductive model cannot score new facts)"
    )
    retrained = refit(saved, store, say=say)
    retrained.save(path)
    return retrained
