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
