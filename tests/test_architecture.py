"""Dependencies point one way (DESIGN §3).

cli → service → agents → {calibration, grounding} → tools → llm → {kg, prompts} → settings →
{errors, _lazy}: the import-linter layers contract in ``pyproject.toml`` (``lint-imports``),
which reads every import — inside functions, under ``TYPE_CHECKING`` and relative ones too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kgrecall"


def test_the_layers_contract_is_kept() -> None:
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_the_layers_contract_catches_an_upward_import(tmp_path: Path) -> None:
    """The contract is live: a config whose layers are inverted is broken."""
    from importlinter.cli import lint_imports

    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    inverted = config.replace('    "kgrecall.cli",\n', "").replace(
        '    "kgrecall.errors | kgrecall._lazy",\n',
        '    "kgrecall.errors | kgrecall._lazy",\n    "kgrecall.cli",\n',
    )
    assert inverted != config
    (tmp_path / "pyproject.toml").write_text(inverted, encoding="utf-8")
    assert lint_imports(config_filename=str(tmp_path / "pyproject.toml"), no_cache=True) == 1


def test_every_subpackage_declares_all() -> None:
    for init in PACKAGE.glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        declared = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and any(
                isinstance(t, ast.Name) and t.id == "__all__"
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ]
        assert declared, f"{init} has no __all__"


@pytest.mark.parametrize(
    "package",
    sorted(
        f"kgrecall.{init.parent.relative_to(PACKAGE)}".replace("/", ".")
        for init in PACKAGE.rglob("__init__.py")
        if "attach(" in init.read_text(encoding="utf-8")
    ),
)
def test_every_lazy_export_resolves(package: str) -> None:
    """A package whose names load on first use (kgrecall._lazy) must still give every name it
    declares: a wrong module in its table would only fail when a caller first reads it."""
    import importlib

    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="has no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018


def test_the_command_line_and_grounding_load_light() -> None:
    """`kgrecall ground` should not pay for torch, the LLM stack or the Neo4j driver: importing
    the CLI and the validator loads none of them (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = (
        "import sys, kgrecall.cli, kgrecall.grounding.validator; "
        "print(sorted(m for m in ('torch', 'langchain_core', 'neo4j', 'bioregistry', "
        "'sentence_transformers', 'kgrecall.tools.minilm') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert loaded == "[]"
