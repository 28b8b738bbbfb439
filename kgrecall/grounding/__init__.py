"""Claim extraction and KG-grounded verification of reports.

Filled by the grounding issue; depends on :mod:`kgrecall.kg` (and tools for linking).
"""

__all__: list[str] = []
