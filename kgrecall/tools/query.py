"""``QueryTree``: entity / project / intersect / union, its JSON form and its topology name.

JSON form (DESIGN §4)::

    {"op": "project", "relation": "associated_with", "inverse": true,
     "input": {"op": "entity", "id": "OMIM:605543"}}

``inverse`` follows the relation against its direction (here: genes associated with the
disease). The topology name comes from the shape alone — 1p 2p 3p 2i 3i ip pi 2u up, other
shapes ``custom`` — and the projections in post-order are the tree's operators ("hops"),
the unit a conformal gate calibrates one threshold for.

A tree's cost grows with its size, so trees are bounded (:class:`TreeLimits`: nodes, depth,
inputs per intersect/union; the defaults admit every named topology many times over) and
:func:`parse_query` refuses a larger one with :class:`QueryTreeLimitError` naming the limit.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    field_validator,
    model_serializer,
)

from kgrecall.kg import GraphStore, KGError

#: Longest entity id or relation name accepted (errors quote them: no huge echo).
MAX_NAME_CHARS = 200


class _Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EntityQuery(_Node):
    """An anchor entity."""

    op: Literal["entity"] = "entity"
    id: str = Field(min_length=1, max_length=MAX_NAME_CHARS)


class ProjectQuery(_Node):
    """Every entity one ``relation`` edge away from the input set; with ``types``, only those
    of these node types ("which *diseases* present with dystonia": ``has_phenotype`` read
    backwards reaches genes too). ``types`` is left out of the JSON form when not given."""

    op: Literal["project"] = "project"
    relation: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    inverse: bool = False
    types: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=16)
    input: QueryTree

    @field_validator("types")
    @classmethod
    def _sorted_types(cls, types: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if types is None:
            return None
        if any(not name or len(name) > MAX_NAME_CHARS for name in types):
            raise ValueError(f"node type names must have 1 to {MAX_NAME_CHARS} characters")
        return tuple(sorted(set(types)))

    @model_serializer(mode="wrap")
    def _without_absent_types(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("types") is None:
            data.pop("types", None)
        return data


class IntersectQuery(_Node):
    """Entities in every input set."""

    op: Literal["intersect"] = "intersect"
    inputs: list[QueryTree] = Field(min_length=2)


class UnionQuery(_Node):
    """Entities in any input set."""

    op: Literal["union"] = "union"
    inputs: list[QueryTree] = Field(min_length=2)


QueryTree = Annotated[
    EntityQuery | ProjectQuery | IntersectQuery | UnionQuery, Field(discriminator="op")
]
for _model in (ProjectQuery, IntersectQuery, UnionQuery):
    _model.model_rebuild()

_ADAPTER: TypeAdapter[Any] = TypeAdapter(QueryTree)

#: The query shapes of the complex-query literature, by name.
Topology = Literal["1p", "2p", "3p", "2i", "3i", "ip", "pi", "2u", "up"]
#: Shape signature → topology name.
_TOPOLOGIES: dict[str, Topology] = {
    "p(e)": "1p",
    "p(p(e))": "2p",
    "p(p(p(e)))": "3p",
    "i(p(e),p(e))": "2i",
    "i(p(e),p(e),p(e))": "3i",
    "p(i(p(e),p(e)))": "ip",
    "i(p(e),p(p(e)))": "pi",
    "u(p(e),p(e))": "2u",
    "p(u(p(e),p(e)))": "up",
}
TOPOLOGIES: tuple[Topology, ...] = tuple(_TOPOLOGIES.values())
SHAPES: dict[str, str] = {name: signature for signature, name in _TOPOLOGIES.items()}
QueryNode = EntityQuery | ProjectQuery | IntersectQuery | UnionQuery


@dataclass(frozen=True, slots=True)
class TreeLimits:
    """The largest query tree accepted: ``max_nodes`` nodes in all, ``max_depth`` nodes on
    the longest root-to-anchor path (an entity alone is depth 1), ``max_branches`` inputs
    per intersect/union. The largest named topology (3i) has 7 nodes, depth 3 and 3
    branches."""

    max_nodes: int = 64
    max_depth: int = 8
    max_branches: int = 16


DEFAULT_TREE_LIMITS = TreeLimits()


class QueryTreeLimitError(KGError):
    """A query tree larger than its :class:`TreeLimits`."""


def check_tree(node: QueryNode, limits: TreeLimits = DEFAULT_TREE_LIMITS) -> None:
    """Raise :class:`QueryTreeLimitError` naming the first limit ``node`` exceeds.

    Iterative, and stops at the first excess: the cost is bounded by the limits, not by the
    size of the tree it refuses.
    """
    nodes = 0
    stack: list[tuple[QueryNode, int]] = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise QueryTreeLimitError(
                f"the query tree has more than max_nodes={limits.max_nodes} nodes"
            )
        if depth > limits.max_depth:
            raise QueryTreeLimitError(
                f"the query tree is deeper than max_depth={limits.max_depth} levels"
            )
        if isinstance(current, ProjectQuery):
            stack.append((current.input, depth + 1))
        elif isinstance(current, IntersectQuery | UnionQuery):
            if len(current.inputs) > limits.max_branches:
                raise QueryTreeLimitError(
                    f"a{'n intersect' if current.op == 'intersect' else ' union'} has "
                    f"{len(current.inputs)} inputs, more than max_branches={limits.max_branches}"
                )
            stack.extend((child, depth + 1) for child in current.inputs)


def parse_query(
    data: str | bytes | dict[str, Any], *, limits: TreeLimits = DEFAULT_TREE_LIMITS
) -> QueryNode:
    """A QueryTree from JSON text or a dict; invalid input raises pydantic's ValidationError
    naming the offending field (e.g. ``input.relation``), a tree beyond ``limits``
    :class:`QueryTreeLimitError`."""
    if isinstance(data, str | bytes):
        node: QueryNode = _ADAPTER.validate_json(data)
    else:
        node = _ADAPTER.validate_python(data)
    check_tree(node, limits)
    return node


_Value = TypeVar("_Value")


def fold(
    node: QueryNode,
    entity: Callable[[EntityQuery], _Value],
    project: Callable[[ProjectQuery, _Value], _Value],
    join: Callable[[IntersectQuery | UnionQuery, list[_Value]], _Value],
) -> _Value:
    """Reduce a tree bottom-up: ``entity`` of each anchor, ``project`` of a hop and its input's
    value, ``join`` of an intersection or union and its inputs' values. Every tree walker
    that needs no top-down context is a fold (a tree is bounded by :func:`check_tree` before
    anything recurses over it)."""
    if isinstance(node, EntityQuery):
        return entity(node)
    if isinstance(node, ProjectQuery):
        return project(node, fold(node.input, entity, project, join))
    return join(node, [fold(child, entity, project, join) for child in node.inputs])


def _concatenated(_: IntersectQuery | UnionQuery, parts: list[list[_Value]]) -> list[_Value]:
    return [item for part in parts for item in part]


def shape(node: QueryNode) -> str:
    """Canonical shape signature, order-insensitive for intersections and unions."""
    return fold(
        node,
        lambda _: "e",
        lambda _, inner: f"p({inner})",
        lambda join, parts: f"{join.op[0]}({','.join(sorted(parts))})",
    )


def topology(node: QueryNode) -> str:
    """1p 2p 3p 2i 3i ip pi 2u up, or ``custom``."""
    return _TOPOLOGIES.get(shape(node), "custom")


def projections(node: QueryNode) -> list[ProjectQuery]:
    """The tree's projections (its hops) in post-order: inputs before the node itself."""
    return fold(node, lambda _: [], lambda hop, inner: [*inner, hop], _concatenated)


def anchors(node: QueryNode) -> list[str]:
    """Anchor entity ids, left to right."""
    return fold(node, lambda leaf: [leaf.id], lambda _, inner: inner, _concatenated)


def hop_depths(node: QueryNode) -> int:
    """How many hop depths a query has: its longest chain of projections (0 for an entity)."""
    return fold(node, lambda _: 0, lambda _, depth: depth + 1, lambda _, depths: max(depths))


def _branches(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    return [*parts, current]


def sample_query(
    store: GraphStore, name: str, rng: random.Random, *, target: str | None = None
) -> QueryNode:
    """A random query of topology ``name`` whose answers include ``target`` (random if None).

    Built backwards from the target: each projection follows a random edge at the current
    entity (inverse when the edge points away from it); the first branch of a union is
    grounded at the target, the others at random entities. Random entities are drawn among
    those with at least one edge.
    """
    if name not in SHAPES:
        raise KGError(f"unknown topology {name!r}; valid: {', '.join(TOPOLOGIES)}")
    entities = _connected_entities(store)
    if not entities:
        raise KGError("the KG has no edges to sample queries from")
    anchor = target if target is not None else rng.choice(entities)
    return _grounded(store, SHAPES[name], anchor, rng, entities)


_CONNECTED: weakref.WeakKeyDictionary[GraphStore, tuple[str, list[str]]] = (
    weakref.WeakKeyDictionary()
)


def _connected_entities(store: GraphStore) -> list[str]:
    """Sorted ids of entities with at least one edge (cached per store and KG version)."""
    cached = _CONNECTED.get(store)
    if cached is None or cached[0] != store.version:
        ids = sorted({e for edge in store.edges() for e in (edge.head, edge.tail)})
        cached = _CONNECTED[store] = (store.version, ids)
    return cached[1]


def _grounded(
    store: GraphStore, signature: str, target: str, rng: random.Random, entities: list[str]
) -> QueryNode:
    if signature == "e":
        return EntityQuery(id=target)
    inner = signature[2:-1]
    if signature[0] == "p":
        edges = store.neighbors(target, direction="both")
        if not edges:
            raise KGError(f"entity {target!r} has no edges to build a projection from")
        edge = rng.choice(edges)
        inverse = edge.head == target
        source = edge.tail if inverse else edge.head
        return ProjectQuery(
            relation=edge.relation,
            inverse=inverse,
            input=_grounded(store, inner, source, rng, entities),
        )
    branches = _branches(inner)
    if signature[0] == "i":
        return IntersectQuery(inputs=[_grounded(store, b, target, rng, entities) for b in branches])
    others = [rng.choice(entities) for _ in branches[1:]]
    return UnionQuery(
        inputs=[_grounded(store, branches[0], target, rng, entities)]
        + [_grounded(store, b, o, rng, entities) for b, o in zip(branches[1:], others, strict=True)]
    )
