"""Prompt templates shipped as package data (``kgrecall/prompts/*.md``), read through one loader."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["load_prompt"]


@cache
def load_prompt(name: str) -> str:
    """The text of prompt ``name`` (file ``<name>.md``); unknown names list the known ones."""
    folder = resources.files(__package__)
    path = folder / f"{name}.md"
    if not path.is_file():
        known = sorted(
            p.name.removesuffix(".md") for p in folder.iterdir() if p.name.endswith(".md")
        )
        raise KeyError(f"no prompt named {name!r}; known prompts: {', '.join(known)}")
    return path.read_text(encoding="utf-8")
