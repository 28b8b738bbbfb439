"""Entity-name tables saved next to a KG: loaded tables answer every lookup as freshly built
ones do, belong to one KG version, and a damaged file is rebuilt, never trusted."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from kgrecall.kg import Edge, NetworkXStore
from kgrecall.kg.demo import build_demo_kg
from kgrecall.tools import EntityIndex, NameTables
from kgrecall.tools.name_tables import NAMES_FILE


@pytest.fixture(scope="module")
def demo() -> NetworkXStore:
    return build_demo_kg(progress=False)


def test_loaded_tables_answer_as_built_ones(demo: NetworkXStore, tmp_path: Path) -> None:
    NameTables.write(demo, tmp_path)
    loaded = NameTables.load(tmp_path / NAMES_FILE, demo.version)
    assert loaded is not None
    built, reloaded = EntityIndex(demo), EntityIndex(demo, tables=loaded)
    rng = random.Random(0)
    nodes = rng.sample(sorted(demo.nodes(), key=lambda n: n.id), 300)
    mentions = [rng.choice([n.name, *n.synonyms]) for n in nodes]
    mentions += [m.lower() for m in mentions[:50]] + [m + "s" for m in mentions[50:100]]
    mentions += ["PD", "DLB", "TOR1A-related dystonia", "Wilson's", "GFRα2", "TrkA"]
    for mention in mentions:
        assert reloaded.lookup(mention) == built.lookup(mention), mention
    assert sum(bool(built.lookup(m)) for m in mentions) > 300  # the sample links


def test_tables_belong_to_one_kg_version(demo: NetworkXStore, tmp_path: Path) -> None:
    NameTables.write(demo, tmp_path)
    assert NameTables.load(tmp_path / NAMES_FILE, "another-version") is None
    assert NameTables.load(tmp_path / "absent.json", demo.version) is None
    changed = NetworkXStore(demo.schema)
    changed.add_nodes(demo.nodes())
    changed.add_edges([*demo.edges(), Edge("NCBIGene:6622", "associated_with", "ORPHA:97")])
    # a newer version: built in memory, not read from the older file
    tables = NameTables.for_store(changed, tmp_path)
    assert tables.version == changed.version != demo.version


def test_a_damaged_file_is_rebuilt_not_trusted(
    demo: NetworkXStore,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / NAMES_FILE
    # a library's logging.config may have disabled loggers created before it ran
    monkeypatch.setattr(logging.getLogger("kgrecall.tools.name_tables"), "disabled", False)
    for damage in (b"{not json", b'{"format": "something else"}', b"[1, 2]"):
        path.write_bytes(damage)
        with caplog.at_level(logging.WARNING, logger="kgrecall.tools.name_tables"):
            assert NameTables.load(path, demo.version) is None
        assert "building them anew" in caplog.text
        caplog.clear()
    # tables an older kgrecall wrote: rebuilt in memory, and the message says how to rewrite
    path.write_bytes(b'{"format": "kgrecall-name-tables/1", "version": "v"}')
    with caplog.at_level(logging.WARNING, logger="kgrecall.tools.name_tables"):
        assert NameTables.load(path, demo.version) is None
    assert "another kgrecall version" in caplog.text and "kgrecall kg index" in caplog.text
    truncated = NameTables.build(demo)
    truncated.save(path)
    path.write_bytes(path.read_bytes().replace(b'"offsets"', b'"offsetz"'))
    assert NameTables.load(path, demo.version) is None
    assert NameTables.for_store(demo, tmp_path).version == demo.version


def test_a_trivial_name_inside_an_approved_name_is_filed(demo: NetworkXStore) -> None:
    # HGNC: "tafazzin, phospholipid-lysophospholipid transacylase"; the gene and its protein
    index = EntityIndex(demo)
    assert {e.id for e in index.lookup("tafazzin")} == {"NCBIGene:6901", "uniprot:Q16635"} & {
        n.id for n in demo.nodes()
    }
    # a word several genes' names hold, or an enzyme class, names none of them
    assert not index.lookup("lectin") and not index.lookup("peptidase")


def test_an_acronym_may_spell_the_of_in_a_name(demo: NetworkXStore) -> None:
    # "Freezing of gait" is FOG as people write it (and FG by the initials rule)
    assert [e.id for e in EntityIndex(demo).link("FOG", k=1)] == ["HP:0031825"]


def test_an_acronym_may_spell_a_compound_word_in_parts(demo: NetworkXStore) -> None:
    # "Oculogyric crisis" is OGC and "Hemifacial spasm" HFS as clinicians write them (OC and
    # HS by the initials rule); among genes OGC stays SLC25A11's alias
    index = EntityIndex(demo)
    assert [e.id for e in index.link("OGC", k=1, node_types={"phenotype"})] == ["HP:0010553"]
    assert [e.id for e in index.link("HFS", k=1, node_types={"phenotype"})] == ["HP:0010828"]
    assert [e.id for e in index.link("OGC", k=1, node_types={"gene"})] == ["NCBIGene:8402"]


def test_an_abbreviation_filed_with_its_name_is_both(demo: NetworkXStore) -> None:
    # MONDO files "HCM - hypertrophic cardiomyopathy" as one synonym of MONDO:0005045
    index = EntityIndex(demo)
    assert [e.id for e in index.link("HCM", k=1)] == ["MONDO:0005045"]
    assert "MONDO:0005045" in {e.id for e in index.lookup("hypertrophic cardiomyopathy")}
    # a short form that does not spell its name from the first letter is not filed:
    # MONDO's "CA - skin cancer"
    assert "MONDO:0002898" not in {e.id for e in index.lookup("CA")}


def test_a_widened_name_keeps_a_word_of_the_name_it_widens(demo: NetworkXStore) -> None:
    index = EntityIndex(demo)
    phrase, added = "late-onset Pompe disease", ["late-onset"]
    # by words alone, "late onset Parkinson disease" is as close as any name
    loose = index.closest_name(phrase, "disease", required=added)
    assert loose is not None and loose.id == "OMIM:168600"
    assert index.closest_name(phrase, "disease", required=added, anchor="Pompe disease") is None


def test_a_close_name_names_every_part_it_joins(demo: NetworkXStore) -> None:
    # "Myopathy, proximal, and ophthalmoplegia" joins two parts; "proximal myopathy" names one
    found = EntityIndex(demo).closest_name("proximal myopathy", "disease", required=["proximal"])
    assert found is None or found.id != "OMIM:605637"
