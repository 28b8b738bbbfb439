"""Path verification on the hand-checked graph: labels, hubs, relations, negation."""

from __future__ import annotations

import random

import pytest

from kgrecall.grounding.verify import ClaimVerdict, PathVerifier
from kgrecall.kg import Edge, NetworkXStore


def claim(verifier: PathVerifier, text: str, entities: list[str]) -> ClaimVerdict:
    """Verify ``text`` whose mentions are the named entities, found by name in this order."""
    mentions, position = [], 0
    for entity in entities:
        name = verifier.store.get_node(entity).name.casefold()
        start = text.casefold().index(name, position)
        mentions.append((entity, start, start + len(name)))
        position = start + len(name)
    return verifier.verify_claim(text, mentions)


def test_labels_by_path_length(store: NetworkXStore) -> None:
    verifier = PathVerifier(store, hub_degree=100)
    assert verifier.verify_pair("G1", "D1").label == "grounded"  # 1 hop
    two = verifier.verify_pair("X", "P1")  # X → G1/D1 → P1
    assert two.label == "grounded" and len(two.path) == 2
    far = verifier.verify_pair("G3", "P1")  # G3 — H — G1 — P1 (3 hops)
    assert far.label == "inferred" and len(far.path) == 3
    assert verifier.verify_pair("G3", "P0").label == "inferred"


def test_hubs_do_not_carry_paths(store: NetworkXStore) -> None:
    strict = PathVerifier(store, hub_degree=3)  # H (degree 3) is a hub
    via_hub = strict.verify_pair("G3", "G2")  # only G3 — H — G2 (or longer through H)
    assert via_hub.through_hubs and via_hub.label == "inferred"
    isolated = NetworkXStore(store.schema, store.metadata)
    isolated.add_nodes(store.nodes())
    isolated.add_edges(e for e in store.edges() if e.head != "H")
    assert PathVerifier(isolated).verify_pair("G3", "G1").label == "ungrounded"


def test_claim_labels_relations_and_conflicts(store: NetworkXStore) -> None:
    verifier = PathVerifier(store)
    plain = claim(verifier, "SNCA is associated with Parkinson disease.", ["G1", "D1"])
    assert plain.label == "grounded" and plain.confidence == 1.0 and not plain.conflicts
    wrong = claim(verifier, "Levodopa targets Parkinson disease.", ["X", "D1"])
    assert wrong.label == "grounded" and wrong.confidence is not None
    assert wrong.confidence < plain.confidence
    assert wrong.conflicts == [
        "the claim says targets, the KG relates X and D1 only by treats"
    ]  # the KG's only direct edge is X treats D1
    generic = claim(verifier, "Levodopa is linked to Parkinson disease.", ["X", "D1"])
    assert not generic.conflicts  # "linked" is generic: any direct edge matches
    indirect = claim(verifier, "Levodopa treats Parkinsonism.", ["X", "P1"])
    assert indirect.label == "grounded" and not indirect.conflicts  # 2 hops: not checked
    negated = claim(verifier, "SNCA is not associated with Parkinson disease.", ["G1", "D1"])
    assert negated.negated and negated.conflicts and negated.confidence == pytest.approx(0.2)
    assert claim(verifier, "The sky is blue.", []).label == "trivial"
    assert claim(verifier, "SNCA matters.", ["G1"]).label == "ungrounded"


def test_opposite_relation_on_the_direct_edge_is_a_conflict(store: NetworkXStore) -> None:
    changed = NetworkXStore(store.schema, store.metadata)
    changed.add_nodes(store.nodes())
    changed.add_edges([*store.edges(), Edge("X", "inhibits", "G2")])
    verdict = claim(PathVerifier(changed), "Levodopa activates LRRK2.", ["X", "G2"])
    assert verdict.label == "grounded"
    assert verdict.conflicts and "inhibits" in verdict.conflicts[0]


def test_activation_of_an_interacting_partner_is_no_conflict(store: NetworkXStore) -> None:
    # the KG records that the two interact, not how: "activates" refines it, "targets" not
    changed = NetworkXStore(store.schema, store.metadata)
    changed.add_nodes(store.nodes())
    changed.add_edges([*store.edges(), Edge("X", "interacts_with", "G2")])
    verifier = PathVerifier(changed)
    for text in ("Levodopa activates LRRK2.", "Levodopa inhibits LRRK2."):
        verdict = claim(verifier, text, ["X", "G2"])
        assert verdict.label == "grounded" and not verdict.conflicts, text
    assert claim(verifier, "Levodopa targets LRRK2.", ["X", "G2"]).conflicts


def test_auto_learned_edges_never_ground(store: NetworkXStore) -> None:
    changed = NetworkXStore(store.schema, store.metadata)
    changed.add_nodes(store.nodes())
    changed.add_edges(e for e in store.edges() if e.head != "H")
    changed.add_edges([Edge("G3", "co_occurs_with", "P0", sources=("auto_learned",))])
    assert PathVerifier(changed).verify_pair("G3", "P0").label == "ungrounded"


def test_direction_of_directed_relations(store: NetworkXStore) -> None:
    verifier = PathVerifier(store)
    forward = claim(verifier, "Levodopa targets SNCA.", ["X", "G1"])
    assert not forward.conflicts and forward.confidence == 1.0
    reverse = claim(verifier, "SNCA targets Levodopa.", ["G1", "X"])
    assert reverse.conflicts == ["direction: the KG says X targets G1, the claim the reverse"]
    passive = claim(verifier, "SNCA is targeted by Levodopa.", ["G1", "X"])
    assert not passive.conflicts  # the passive voice puts the object first
    symmetric = claim(verifier, "SNCA interacts with LRRK2.", ["G1", "G2"])
    assert not symmetric.conflicts  # the KG edge is G2 → G1; interaction has no direction


@pytest.mark.parametrize(
    ("text", "entities", "reversed_claim"),
    [
        # P1 (Parkinsonism) subclass_of P0 (Abnormality of movement)
        ("Parkinsonism is a type of abnormality of movement.", ["P1", "P0"], False),
        ("Abnormality of movement is a type of parkinsonism.", ["P0", "P1"], True),
        # D1 (Parkinson disease) has_phenotype P1 (Parkinsonism)
        ("Parkinson disease presents with parkinsonism.", ["D1", "P1"], False),
        ("Parkinsonism is a common feature of Parkinson disease.", ["P1", "D1"], False),
        ("Parkinsonism is seen in Parkinson disease.", ["P1", "D1"], False),
        ("Parkinson disease is a symptom of parkinsonism.", ["D1", "P1"], True),
        ("Parkinsonism presents with Parkinson disease.", ["P1", "D1"], True),
    ],
)
def test_direction_of_hierarchy_and_phenotype_claims(
    store: NetworkXStore, text: str, entities: list[str], reversed_claim: bool
) -> None:
    verdict = claim(PathVerifier(store), text, entities)
    assert bool(verdict.conflicts) == reversed_claim, verdict.conflicts
    if reversed_claim:
        assert verdict.conflicts[0].startswith("direction: the KG says")


def reference_distance(store: NetworkXStore, source: str, target: str, hub: int) -> int | None:
    """Plain one-sided BFS over the undirected KG; hubs may end a path, never carry one."""
    adjacency: dict[str, set[str]] = {}
    for edge in store.edges():
        adjacency.setdefault(edge.head, set()).add(edge.tail)
        adjacency.setdefault(edge.tail, set()).add(edge.head)
    degree = {n: len(store.neighbors(n, direction="both")) for n in adjacency}
    seen, frontier = {source: 0}, [source]
    while frontier:
        following = []
        for node in frontier:
            if seen[node] == 4 or (node != source and degree[node] >= hub):
                continue
            for other in adjacency.get(node, ()):
                if other not in seen:
                    seen[other] = seen[node] + 1
                    following.append(other)
        frontier = following
    return seen.get(target)


def test_bidirectional_search_finds_shortest_hub_free_paths(demo: NetworkXStore) -> None:
    rng = random.Random(7)
    ids = sorted(n.id for n in demo.nodes() if demo.neighbors(n.id, direction="both"))
    verifier = PathVerifier(demo, hub_degree=200)
    lengths = []
    for _ in range(60):
        source, target = rng.sample(ids, 2)
        expected = reference_distance(demo, source, target, 200)
        path = verifier._search([source], [target], avoid_hubs=True)
        assert (None if path is None else len(path)) == expected, (source, target)
        if path:  # a connected chain from source to target
            ends = {path[0].head, path[0].tail} & {source}
            assert ends and target in (path[-1].head, path[-1].tail)
            lengths.append(len(path))
    assert len(set(lengths)) >= 2  # the sample covers several path lengths


def test_a_gene_and_its_protein_are_one_end_of_a_claim(demo: NetworkXStore) -> None:
    """ "TH binds DRD1" names genes; the KG's interaction is between their proteins."""
    gene_of = {e.tail: e.head for e in demo.edges() if e.relation == "encodes"}
    pairs = [
        (gene_of[e.head], gene_of[e.tail])
        for e in demo.edges()
        if e.relation == "interacts_with" and e.head in gene_of and e.tail in gene_of
    ]
    assert len(pairs) > 20
    verifier = PathVerifier(demo)
    for head, tail in pairs[:20]:
        verdict = verifier.verify_pair(head, tail)
        assert verdict.label == "grounded" and [e.relation for e in verdict.path] == [
            "interacts_with"
        ]


def test_a_step_between_a_gene_and_its_protein_is_no_hop(demo: NetworkXStore) -> None:
    """A protein two hops from a disease through another gene's protein: protein —
    interacts_with — protein ← encodes — gene — associated_with — disease is 2 hops between
    entities (a gene and its protein are one), so grounded."""
    verifier = PathVerifier(demo, max_depth=4, hub_degree=200)
    verdict = verifier.verify_pair("uniprot:Q7L0J3", "ORPHA:98915")  # SV2A, synaptic CMS
    relations = [e.relation for e in verdict.path]
    assert len(relations) == 3 and relations.count("encodes") == 1
    assert verdict.label == "grounded"


def test_denying_an_indirect_link_is_no_conflict(store: NetworkXStore) -> None:
    verifier = PathVerifier(store)
    # G2 and P1 are 2 hops apart (G2 — G1 — P1): no direct edge to contradict
    verdict = claim(verifier, "LRRK2 does not cause parkinsonism.", ["G2", "P1"])
    assert verdict.negated and not verdict.conflicts
    assert verdict.label == "ungrounded" and verdict.confidence == 0.0
    assert "cannot confirm" in verdict.notes[0]
    # a direct edge of the denied relation is a contradiction
    direct = claim(verifier, "SNCA lacks the phenotype parkinsonism.", ["G1", "P1"])
    assert direct.conflicts and direct.conflicts[0].startswith("the claim denies it")


def test_a_name_that_only_names_a_setting_says_nothing(store: NetworkXStore) -> None:
    verifier = PathVerifier(store)
    assert claim(verifier, "Notes from the parkinsonism clinic.", ["P1"]).label == "trivial"
    assert claim(verifier, "A parkinsonism panel was proposed.", ["P1"]).label == "trivial"
    # a claim about the same name is not
    assert claim(verifier, "Parkinsonism was seen.", ["P1"]).label == "ungrounded"
    assert claim(verifier, "LRRK2 clinic data: parkinsonism.", ["G2", "P1"]).label != "trivial"


def test_two_records_of_one_disease_are_one_end_of_a_claim(demo: NetworkXStore) -> None:
    """An OMIM and an Orphanet record that share a MONDO id are one disease: NIPA1's edge to
    the OMIM record of SPG13 grounds a claim naming its Orphanet record in one hop."""
    verifier = PathVerifier(demo)
    assert "OMIM:605280" in verifier.identities("ORPHA:100994")
    assert demo.get_edge("NCBIGene:123606", "associated_with", "ORPHA:100994") is None
    verdict = verifier.verify_pair("NCBIGene:123606", "ORPHA:100994")
    assert verdict.label == "grounded"
    assert [(e.head, e.tail) for e in verdict.path] == [("NCBIGene:123606", "OMIM:605280")]
    # records are grouped by MONDO id only: an unrelated disease is not pulled in
    assert "OMIM:613364" not in verifier.identities("ORPHA:100994")


def test_a_regulation_word_that_is_no_finite_verb_claims_no_regulation(
    store: NetworkXStore,
) -> None:
    # "…, increasing severity in Parkinson disease" states an effect: no regulation conflict
    # against the gene's association edge; "SNCA increases Parkinson disease" does claim one
    verifier = PathVerifier(store)
    text = "SNCA acts as a modifier, increasing severity in Parkinson disease."
    loose = claim(verifier, text, ["G1", "D1"])
    assert loose.label == "grounded" and not loose.conflicts
    assert claim(verifier, "SNCA increases Parkinson disease.", ["G1", "D1"]).conflicts


def test_a_gloss_of_the_same_type_restates_the_name_before_it(store: NetworkXStore) -> None:
    verifier = PathVerifier(store, hub_degree=3)
    # the brackets say which disease: LRRK2–Parkinson disease is the claim, and the weaker
    # pair with the name they gloss is dropped
    glossed = claim(
        verifier, "LRRK2 causes Cystic fibrosis (Parkinson disease).", ["G2", "D2", "D1"]
    )
    assert glossed.label == "grounded"
    assert [(p.source, p.target) for p in glossed.pairs] == [("G2", "D1")]
    # without brackets the two are a list: each pair counts
    listed = claim(
        verifier, "LRRK2 causes Cystic fibrosis and Parkinson disease.", ["G2", "D2", "D1"]
    )
    assert listed.label != "grounded"
    # a gloss of another type names something else ("DGUOK (MTDPS3)"): what is said of the
    # name is not said of it
    other = claim(verifier, "LRRK2 causes Parkinsonism (Cystic fibrosis).", ["G2", "P1", "D2"])
    assert ("G2", "D2") not in [(p.source, p.target) for p in other.pairs]


def test_an_interjection_after_the_copula_keeps_the_wording_whole(store: NetworkXStore) -> None:
    # "is, strictly speaking, a feature of": the phenotype first, as without the interjection
    verifier = PathVerifier(store)
    for text in (
        "Parkinsonism is a feature of Parkinson disease.",
        "Parkinsonism is, strictly speaking, a feature of Parkinson disease.",
    ):
        verdict = claim(verifier, text, ["P1", "D1"])
        assert verdict.label == "grounded" and not verdict.conflicts, text
