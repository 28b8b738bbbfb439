"""Save/load: exact round trips, atomic writes, clear errors on bad files."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import orjson
import pytest

from kgrecall.kg import (
    Edge,
    KGLoadError,
    NetworkXStore,
    load_graph,
    save_graph,
)
from kgrecall.kg.records import edge_to_record, node_to_record


def canonical(store: NetworkXStore) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    nodes = sorted((node_to_record(n) for n in store.nodes()), key=lambda r: str(r["id"]))
    edges = sorted(
        (edge_to_record(e) for e in store.edges()), key=lambda r: (r["h"], r["r"], r["t"])
    )
    return nodes, edges


@pytest.mark.parametrize("name", ["graph.json", "graph.json.gz"])
def test_round_trip_is_exact(store: NetworkXStore, tmp_path: Path, name: str) -> None:
    store.add_edges(
        [
            Edge(
                "G3",
                "has_phenotype",
                "P0",
                sources=("a", "b"),
                confidence=0.123456789,
                timestamp="2025-01-02T03:04:05+00:00",
                properties={"pmid": ["1", "2"], "score": 0.5, "note": "α-synuclein ✓"},
            )
        ]
    )
    store.metadata.sources.append({"name": "hand", "version": "1", "licence": "CC0"})
    path = save_graph(store, tmp_path / name)
    loaded = load_graph(path)
    assert canonical(loaded) == canonical(store)
    assert loaded.version == store.version
    assert loaded.schema == store.schema
    assert loaded.metadata.sources == store.metadata.sources
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    # Saving the loaded graph again gives the same content.
    again = load_graph(save_graph(loaded, tmp_path / ("again-" + name)))
    assert canonical(again) == canonical(store)


def test_truncated_json_names_file_and_position(store: NetworkXStore, tmp_path: Path) -> None:
    path = save_graph(store, tmp_path / "g.json")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(KGLoadError, match=r"g\.json: invalid or truncated JSON at byte \d+"):
        load_graph(path)


def test_truncated_gzip_is_reported(store: NetworkXStore, tmp_path: Path) -> None:
    path = save_graph(store, tmp_path / "g.json.gz")
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(KGLoadError, match="corrupt or truncated gzip"):
        load_graph(path)


def _rewrite(path: Path, change: object) -> None:
    document = orjson.loads(path.read_bytes())
    change(document)  # type: ignore[operator]
    path.write_bytes(orjson.dumps(document))


def test_unknown_relation_names_the_record(store: NetworkXStore, tmp_path: Path) -> None:
    path = save_graph(store, tmp_path / "g.json")
    _rewrite(path, lambda d: d["edges"][3].__setitem__("r", "causes_mayhem"))
    with pytest.raises(KGLoadError) as caught:
        load_graph(path)
    assert caught.value.field == "edges[3].relation"
    assert "unknown relation 'causes_mayhem'" in str(caught.value)
    assert "valid relations:" in str(caught.value)


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d["nodes"][0].pop("type"), "nodes[0].type", "missing"),
        (
            lambda d: d["nodes"][1].__setitem__("synonyms", "x"),
            "nodes[1].synonyms",
            "list of strings",
        ),
        (
            lambda d: d["edges"][0].__setitem__("confidence", "high"),
            "edges[0].confidence",
            "[0, 1]",
        ),
        (lambda d: d["edges"][2].__setitem__("t", "NOPE"), "edges[2]", "unknown node 'NOPE'"),
        (lambda d: d.__setitem__("schema_version", 99), "schema_version", "unsupported"),
        (
            lambda d: d["schema"]["relations"].__setitem__("bad name", ""),
            "schema",
            "invalid relation",
        ),
        (lambda d: d.__setitem__("edges", {}), "edges", "not a list"),
    ],
)
def test_invalid_fields_are_named(
    store: NetworkXStore, tmp_path: Path, change: object, field: str, message: str
) -> None:
    path = save_graph(store, tmp_path / "g.json")
    _rewrite(path, change)
    with pytest.raises(KGLoadError, match=message) as caught:
        load_graph(path)
    assert caught.value.field == field


def test_edited_content_fails_the_version_check(store: NetworkXStore, tmp_path: Path) -> None:
    path = save_graph(store, tmp_path / "g.json")
    _rewrite(path, lambda d: d["nodes"][0].__setitem__("name", "renamed"))
    with pytest.raises(KGLoadError, match="content hash mismatch"):
        load_graph(path)
    assert load_graph(path, verify_version=False).version != store.version


def test_not_a_kg_file(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": "world"}')
    with pytest.raises(KGLoadError, match="not a kgrecall KG file"):
        load_graph(path)
    with pytest.raises(KGLoadError, match="no such file"):
        load_graph(tmp_path / "missing.json")


def test_failed_save_leaves_previous_file(store: NetworkXStore, tmp_path: Path) -> None:
    path = save_graph(store, tmp_path / "g.json.gz")
    before = path.read_bytes()

    class Exploding(NetworkXStore):
        def edges(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("disk on fire")

    broken = Exploding(store.schema)
    broken.add_nodes(store.nodes())
    with pytest.raises(RuntimeError):
        save_graph(broken, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.json.gz"]  # no temp file left


WRITER = textwrap.dedent(
    """
    import sys
    from kgrecall.kg import Edge, KGSchema, NetworkXStore, Node, save_graph
    store = NetworkXStore(KGSchema.biomedical())
    n = 400_000
    store.add_nodes(Node(f"N{i}", "gene", f"gene {i}") for i in range(n))
    store.add_edges(Edge(f"N{i}", "interacts_with", f"N{(i * 7 + 1) % n}") for i in range(n))
    print("writing", flush=True)
    save_graph(store, sys.argv[1])
    print("done", flush=True)
    """
)


def test_kill_during_write_keeps_previous_file_readable(
    store: NetworkXStore, tmp_path: Path
) -> None:
    path = save_graph(store, tmp_path / "g.json.gz")
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"
    # Kill once the temporary file exists, i.e. in the middle of the write.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(
        p.name.endswith(".tmp") for p in tmp_path.iterdir()
    ):
        time.sleep(0.005)
    assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir()), "writer never started writing"
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    assert writer.returncode == -signal.SIGKILL
    assert load_graph(path).version == store.version


def test_gzip_output_is_deterministic(store: NetworkXStore, tmp_path: Path) -> None:
    first = save_graph(store, tmp_path / "a.json.gz")
    store.metadata.created = orjson.loads(gzip.decompress(first.read_bytes()))["metadata"][
        "created"
    ]
    second = save_graph(store, tmp_path / "b.json.gz")
    assert first.read_bytes() == second.read_bytes()
