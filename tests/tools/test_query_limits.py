"""Query tree limits (issue #19): every named topology fits the defaults with room, wide and
deep trees are refused at parse time with the limit named, and the limits are settable."""

from __future__ import annotations

import random
import time

import pytest

from kgrecall.kg import KGError
from kgrecall.tools.query import (
    DEFAULT_TREE_LIMITS,
    SHAPES,
    QueryTreeLimitError,
    TreeLimits,
    check_tree,
    parse_query,
    sample_query,
)
from tests.conftest import PD4_GENES, small_store

ENTITY: dict[str, object] = {"op": "entity", "id": "OMIM:605543"}


def chain(depth: int) -> dict[str, object]:
    """A projection chain with ``depth`` nodes (the anchor included)."""
    tree: dict[str, object] = ENTITY
    for _ in range(depth - 1):
        tree = {"op": "project", "relation": "has_phenotype", "input": tree}
    return tree


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_named_topology_fits_with_room(name: str) -> None:
    tree = sample_query(small_store(), name, random.Random(0), target="D1")
    check_tree(tree, TreeLimits(max_nodes=8, max_depth=4, max_branches=3))
    check_tree(tree)


def test_the_defaults() -> None:
    assert TreeLimits(max_nodes=64, max_depth=8, max_branches=16) == DEFAULT_TREE_LIMITS
    parse_query(chain(8))
    parse_query({"op": "union", "inputs": [PD4_GENES] * 16})


@pytest.mark.parametrize(
    ("tree", "limit"),
    [
        ({"op": "union", "inputs": [PD4_GENES] * 17}, "max_branches=16"),
        ({"op": "intersect", "inputs": [PD4_GENES] * 40_000}, "max_branches=16"),
        (chain(9), "max_depth=8"),
        (chain(250), "max_depth=8"),
        (
            {"op": "union", "inputs": [{"op": "union", "inputs": [PD4_GENES] * 16}] * 16},
            "max_nodes=64",
        ),
    ],
)
def test_large_trees_are_refused_naming_the_limit(tree: dict[str, object], limit: str) -> None:
    started = time.perf_counter()
    with pytest.raises(QueryTreeLimitError, match=limit):
        parse_query(tree)
    assert time.perf_counter() - started < 5.0
    assert issubclass(QueryTreeLimitError, KGError)  # a clear error wherever KG errors are


def test_limits_are_configurable() -> None:
    tight = TreeLimits(max_nodes=3, max_depth=2, max_branches=2)
    parse_query(chain(2), limits=tight)
    with pytest.raises(QueryTreeLimitError, match="max_depth=2"):
        parse_query(chain(3), limits=tight)
    loose = TreeLimits(max_depth=300, max_nodes=300)
    parse_query(chain(250), limits=loose)


def test_topology_names_are_one_list() -> None:
    """The Literal the HTTP models validate against and the tuple the code iterates agree."""
    from typing import get_args

    from kgrecall.tools.query import SHAPES, TOPOLOGIES, Topology

    assert get_args(Topology) == TOPOLOGIES and set(SHAPES) == set(TOPOLOGIES)
