"""all-MiniLM-L6-v2 sentence embeddings without sentence-transformers: the BERT encoder, mean
pooling and unit length, as sentence-transformers computes them.

Why: importing sentence-transformers (with transformers and scikit-learn) takes about 3.5 s, the
model itself 0.4 s; a command that embeds one mention ("what genes cause phenotypes like
chorea?": a fuzzy entity lookup) paid that on every run. A few texts (a query's mentions:
:data:`NUMPY_TEXTS` or fewer) in a process that has not imported torch are encoded in numpy, so
such a command does not import it either (2 s here); otherwise in PyTorch (a warm server's
query: 4 ms against numpy's 31; 1,000 names: nine times faster). Both
follow the same steps and agree within 1e-6. Needs the ``tokenizers`` library (the model's own
``tokenizer.json``), ``safetensors`` and scipy's ``erf`` (BERT's exact GELU); torch for
batches. The weights are read strictly: every tensor of the encoder present, nothing unknown
(``pooler.*`` and the ``position_ids`` buffer, which sentence embeddings do not use, aside),
and shapes that fit one another (a short text is encoded at load).
The test suite checks both paths' vectors against sentence-transformers' on the same texts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy.special import erf
from tqdm import tqdm

from kgrecall.kg import KGError

if TYPE_CHECKING:
    import torch

__all__ = ["NUMPY_TEXTS", "MiniLM"]

#: At most this many texts are encoded in numpy when torch is not imported yet; more, or any
#: once it is, in PyTorch.
NUMPY_TEXTS = 16

#: Tensors of the checkpoint that sentence embeddings do not use.
_UNUSED = ("pooler.dense.weight", "pooler.dense.bias", "embeddings.position_ids")
_LAYER_TENSORS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
_LAYER_NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


class MiniLM:
    """The sentence-transformers model folder ``folder`` (BERT config, ``model.safetensors``,
    ``tokenizer.json``, ``sentence_bert_config.json``) as a mean-pooling sentence encoder."""

    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            sentence = json.loads((folder / "sentence_bert_config.json").read_text("utf-8"))
            pooling = json.loads((folder / "1_Pooling" / "config.json").read_text("utf-8"))
            self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
            weights = load_file(str(folder / "model.safetensors"))
        except Exception as error:  # tokenizers and safetensors raise plain Exceptions
            raise KGError(
                f"{folder}: not a readable sentence-transformers model ({error})"
            ) from None
        if config.get("model_type") != "bert" or config.get("hidden_act") != "gelu":
            raise KGError(f"{folder}: not a BERT model with GELU ({config.get('model_type')})")
        if not pooling.get("pooling_mode_mean_tokens"):
            raise KGError(f"{folder}: the model does not pool by the mean of its tokens")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.weights = _checked(weights, self.layers, folder)
        self.tokenizer.enable_truncation(int(sentence["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))
        try:
            self.encode(["shape check"], backend="numpy")  # no torch needed to load
        except ValueError as error:  # numpy: arrays whose shapes do not fit together
            raise KGError(f"{folder}: weights of mismatched shapes ({error})") from None

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 128,
        progress: bool = False,
        backend: str | None = None,
    ) -> np.ndarray:
        """Unit-length float32 embeddings of ``texts``, shape ``(len(texts), hidden)``; a
        progress bar on stderr when ``progress``. ``backend`` ("numpy" or "torch") overrides
        the choice by number of texts."""
        if batch_size < 1:
            raise KGError(f"batch_size must be at least 1, got {batch_size}")
        # numpy only spares a process that has not imported torch its import: once torch is
        # there (a server, a thorough ask), it is several times faster even on one text
        few = len(texts) <= NUMPY_TEXTS and "torch" not in sys.modules
        chosen = backend or ("numpy" if few else "torch")
        if chosen not in ("numpy", "torch"):
            raise KGError(f"backend must be 'numpy' or 'torch', got {backend!r}")
        if chosen == "numpy":
            return self._encode(texts, batch_size, progress, self._numpy_batch)
        import torch

        with torch.inference_mode():
            return self._encode(texts, batch_size, progress, self._torch_batch)

    def _encode(
        self,
        texts: Sequence[str],
        batch_size: int,
        progress: bool,
        batch: Callable[[list[str]], np.ndarray],
    ) -> np.ndarray:
        vectors = np.zeros((len(texts), self.hidden), dtype=np.float32)
        # longest first, as sentence-transformers batches: a batch is padded to its longest
        # text, and attention costs the square of that
        lengths = [sum(e.attention_mask) for e in self.tokenizer.encode_batch(list(texts))]
        order = np.argsort([-length for length in lengths], kind="stable")
        starts = range(0, len(texts), batch_size)
        for start in tqdm(starts, desc="embedding", unit="batch", disable=not progress):
            chosen = order[start : start + batch_size]
            vectors[chosen] = batch([texts[i] for i in chosen])
        return vectors

    def _tokens(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Token ids, attention mask (float) and token types of ``texts``, padded alike."""
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        return ids, mask, types

    def _numpy_batch(self, texts: list[str]) -> np.ndarray:
        """The torch path's steps in numpy (one query's few texts: no torch import)."""
        ids, mask, types = self._tokens(texts)
        w = self.weights
        batch, length = ids.shape
        size = self.hidden // self.heads

        def linear(x: np.ndarray, name: str) -> np.ndarray:
            return np.asarray(x @ w[name + ".weight"].T + w[name + ".bias"])

        def norm(x: np.ndarray, name: str) -> np.ndarray:
            centred = x - x.mean(-1, keepdims=True)
            scale = np.sqrt((centred**2).mean(-1, keepdims=True) + self.eps)
            return np.asarray(centred / scale * w[name + ".weight"] + w[name + ".bias"])

        x = norm(
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][types],
            "embeddings.LayerNorm",
        )
        blocked = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
        for layer in range(self.layers):
            prefix = f"encoder.layer.{layer}."

            def heads(name: str, x: np.ndarray = x, prefix: str = prefix) -> np.ndarray:
                projected = linear(x, prefix + name)
                return projected.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

            scores = (
                heads("attention.self.query")
                @ heads("attention.self.key").transpose(0, 1, 3, 2)
                / np.sqrt(size)
                + blocked
            )
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            weights /= weights.sum(-1, keepdims=True)
            context = (weights @ heads("attention.self.value")).transpose(0, 2, 1, 3)
            context = context.reshape(batch, length, self.hidden)
            x = norm(
                linear(context, prefix + "attention.output.dense") + x,
                prefix + "attention.output.LayerNorm",
            )
            inner = linear(x, prefix + "intermediate.dense")
            inner = 0.5 * inner * (1.0 + erf(inner / np.sqrt(2.0)))  # BERT's exact GELU
            x = norm(linear(inner, prefix + "output.dense") + x, prefix + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        unit = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return np.asarray(unit, dtype=np.float32)

    @cached_property
    def _tensors(self) -> dict[str, torch.Tensor]:
        """The weights as torch tensors (sharing the arrays' memory), made on first use."""
        import torch

        return {name: torch.from_numpy(array) for name, array in self.weights.items()}

    def _torch_batch(self, texts: list[str]) -> np.ndarray:
        import torch
        from torch.nn import functional

        ids, mask, types = (torch.from_numpy(array) for array in self._tokens(texts))
        w = self._tensors
        length = ids.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        # padded keys get no attention (as BERT's additive mask: the dtype's minimum)
        blocked = (1.0 - mask)[:, None, None, :] * torch.finfo(torch.float32).min
        for layer in range(self.layers):
            x = self._layer(x, blocked, f"encoder.layer.{layer}.")
        summed = (x * mask[:, :, None]).sum(1)
        pooled = summed / mask.sum(1, keepdim=True).clamp(min=1e-9)
        return functional.normalize(pooled, p=2, dim=1).numpy().astype(np.float32)

    def _layer(self, x: torch.Tensor, blocked: torch.Tensor, prefix: str) -> torch.Tensor:
        """One encoder layer: self-attention, then the feed-forward block, each with its
        residual and layer norm."""
        from torch.nn import functional

        batch, length, _ = x.shape
        size = self.hidden // self.heads

        def heads(name: str) -> torch.Tensor:
            projected = self._linear(x, prefix + name)
            return projected.view(batch, length, self.heads, size).transpose(1, 2)

        context = functional.scaled_dot_product_attention(
            heads("attention.self.query"),
            heads("attention.self.key"),
            heads("attention.self.value"),
            attn_mask=blocked,
        ).transpose(1, 2)
        context = context.reshape(batch, length, self.hidden)
        x = self._norm(
            self._linear(context, prefix + "attention.output.dense") + x,
            prefix + "attention.output.LayerNorm",
        )
        inner = functional.gelu(self._linear(x, prefix + "intermediate.dense"))
        return self._norm(
            self._linear(inner, prefix + "output.dense") + x, prefix + "output.LayerNorm"
        )

    def _linear(self, x: torch.Tensor, name: str) -> torch.Tensor:
        from torch.nn import functional

        w = self._tensors
        return functional.linear(x, w[name + ".weight"], w[name + ".bias"])

    def _norm(self, x: torch.Tensor, name: str) -> torch.Tensor:
        from torch.nn import functional

        w = self._tensors
        return functional.layer_norm(
            x, (self.hidden,), w[name + ".weight"], w[name + ".bias"], self.eps
        )


def _checked(weights: dict[str, np.ndarray], layers: int, folder: Path) -> dict[str, np.ndarray]:
    """The encoder's tensors, refused by name when one is missing or unknown."""
    expected = {
        "embeddings.word_embeddings.weight",
        "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight",
        "embeddings.LayerNorm.weight",
        "embeddings.LayerNorm.bias",
    }
    for layer in range(layers):
        for name in (*_LAYER_TENSORS, *_LAYER_NORMS):
            expected |= {
                f"encoder.layer.{layer}.{name}.weight",
                f"encoder.layer.{layer}.{name}.bias",
            }
    given = set(weights) - set(_UNUSED)
    missing, unknown = sorted(expected - given), sorted(given - expected)
    if missing or unknown:
        raise KGError(
            f"{folder}: weights do not fit a {layers}-layer BERT encoder (missing: "
            f"{', '.join(missing[:3]) or 'none'}; unknown: {', '.join(unknown[:3]) or 'none'})"
        )
    return {name: np.ascontiguousarray(weights[name], dtype=np.float32) for name in expected}
