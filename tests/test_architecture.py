"""Dependencies point one way (DESIGN §3).

service → agents → {calibration, grounding} → tools → kg; llm (OpenAI-compatible client) and
prompts (templates) sit beside kg: llm may use kg's errors, prompts nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kgrecall"

#: For each subpackage, the kgrecall subpackages it must never import.
FORBIDDEN: dict[str, set[str]] = {
    "kg": {"tools", "calibration", "grounding", "agents", "service", "cli", "prompts", "llm"},
    "llm": {"tools", "calibration", "grounding", "agents", "service", "cli", "prompts"},
    "prompts": {"kg", "llm", "tools", "calibration", "grounding", "agents", "service", "cli"},
    "tools": {"calibration", "grounding", "agents", "service", "cli"},
    "calibration": {"agents", "service", "cli", "grounding"},
    "grounding": {"agents", "service", "cli", "calibration"},
    "agents": {"service", "cli"},
}


def imported_subpackages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "kgrecall" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("subpackage", sorted(FORBIDDEN))
def test_layering(subpackage: str) -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): imported_subpackages(path) & FORBIDDEN[subpackage]
        for path in (PACKAGE / subpackage).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


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
        "'sentence_transformers') if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert loaded == "[]"
