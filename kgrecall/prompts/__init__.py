"""Prompt templates shipped as package data, read through one loader (agent issue)."""

__all__: list[str] = []
