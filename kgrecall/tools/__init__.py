"""Retrieval tools (graph traversal, vector and fulltext search, neural completion).

Filled by the retrieval-tools and link-predictor issues; depends only on :mod:`kgrecall.kg`.
"""

__all__: list[str] = []
