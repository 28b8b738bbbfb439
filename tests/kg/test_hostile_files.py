"""Hostile names and files (issue #19): names with a trailing newline, names too long for the
file system, corrupt gzip data, and temporary files left by a killed writer."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kgrecall.kg import KGError, KGLoadError, Workspace, load_graph, save_graph
from kgrecall.kg.errors import KGNotFoundError
from kgrecall.kg.loaders.base import read_text_lines
from kgrecall.kg.model import check_identifier
from kgrecall.kg.persistence import (
    STALE_TEMP_AGE_S,
    atomic_write_bytes,
    remove_stale_temporaries,
)
from tests.conftest import DATA, small_store


def run_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgrecall", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "KGRECALL_HOME": str(home)},
        timeout=120,
    )


@pytest.mark.parametrize("name", ["nl\n", "demo\n", "a" * 101, "a" * 300, ".hidden", "a/b"])
def test_invalid_kg_names_are_refused(tmp_path: Path, name: str) -> None:
    workspace = Workspace(tmp_path)
    with pytest.raises(KGError, match="invalid KG name") as raised:
        workspace.kg_dir(name)
    assert len(str(raised.value)) < 250
    with pytest.raises(KGError):
        workspace.save(small_store(), name)
    with pytest.raises(KGNotFoundError, match="no KG named"):
        workspace.load(name)  # a 300-char name raised OSError (File name too long)
    assert not (tmp_path / "kgs").exists() or not any((tmp_path / "kgs").iterdir())


def test_identifiers_with_a_trailing_newline_are_refused() -> None:
    check_identifier("associated_with", "relation")
    for bad in ("abc\n", "gene\n", "a\nb"):
        with pytest.raises(KGError):
            check_identifier(bad, "relation")


def test_corrupt_gzip_is_a_load_error(tmp_path: Path) -> None:
    graph = save_graph(small_store(), tmp_path / "graph.json.gz")
    raw = bytearray(graph.read_bytes())
    raw[20:40] = bytes(20)  # corrupt deflate data: zlib.error, not OSError
    graph.write_bytes(bytes(raw))
    with pytest.raises(KGLoadError, match="corrupt or truncated gzip"):
        load_graph(graph)
    tsv = tmp_path / "edges.tsv.gz"
    packed = bytearray(gzip.compress((DATA / "small.tsv").read_bytes() * 50))
    packed[20:40] = bytes(20)
    tsv.write_bytes(bytes(packed))
    with pytest.raises(KGLoadError, match="corrupt or truncated gzip"):
        read_text_lines(tsv)


def test_cli_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    graph = save_graph(small_store(), tmp_path / "graph.json.gz")
    raw = bytearray(graph.read_bytes())
    raw[20:40] = bytes(20)
    graph.write_bytes(bytes(raw))
    corrupt = run_cli("kg", "stats", str(graph), home=tmp_path / "home")
    long_name = run_cli(
        "kg", "import", str(DATA / "small.tsv"), "--name", "x" * 300, home=tmp_path / "home"
    )
    newline = run_cli(
        "kg", "import", str(DATA / "small.tsv"), "--name", "nl\n", home=tmp_path / "home"
    )
    for result, fragment in [
        (corrupt, "corrupt or truncated gzip"),
        (long_name, "invalid KG name"),
        (newline, "invalid KG name"),
    ]:
        assert result.returncode == 2, result.stderr
        assert fragment in result.stderr and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "home" / "kgs" / "nl\n").exists()


def age(path: Path, seconds: float) -> None:
    """Set ``path``'s modification time ``seconds`` in the past."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_stale_temporaries_are_removed_on_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "graph.json.gz"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = tmp_path / f".graph.json.gz.{dead}.abcd1234.tmp"
    legacy = tmp_path / ".graph.json.gz.k3j_x9q2.tmp"  # older kgrecall: no pid in the name
    fresh = tmp_path / f".graph.json.gz.{dead}.fresh123.tmp"
    in_flight = tmp_path / f".graph.json.gz.{os.getpid()}.flight12.tmp"
    other_target = tmp_path / f".graph.json.gz.bak.{dead}.abcd1234.tmp"
    for path in (stale, legacy, fresh, in_flight, other_target):
        path.write_bytes(b"half a graph")
    for path in (stale, legacy, in_flight, other_target):
        age(path, STALE_TEMP_AGE_S + 60)
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([target.name, fresh.name, in_flight.name, other_target.name])


KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from kgrecall.kg.persistence import atomic_write_bytes

    def forever(handle):
        handle.write(b"half")
        handle.flush()
        print("writing", flush=True)
        time.sleep(600)

    atomic_write_bytes(Path(sys.argv[1]), forever)
    """
)


def test_a_kill_9_leftover_is_cleaned_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "model.pt"
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
    (leftover,) = tmp_path.glob(".model.pt.*.tmp")
    assert f".model.pt.{writer.pid}." in leftover.name  # recognisable: target and writer
    assert remove_stale_temporaries(target, max_age_s=0) == []  # its writer is running
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    assert leftover.exists()  # what kill -9 leaves behind
    assert remove_stale_temporaries(target) == []  # too recent to be sure
    age(leftover, STALE_TEMP_AGE_S + 60)
    atomic_write_bytes(target, b"model")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]


def test_asking_for_paths_creates_nothing(tmp_path: Path) -> None:
    """Paths are pure: asking where a model of an absent KG would live, or listing the KGs,
    leaves the workspace untouched (a listing used to create ``kgs/NAME/models/``)."""
    from kgrecall.agents.service import QueryService, model_path

    workspace = Workspace(tmp_path)
    path = model_path(workspace, "absent", "RotatE")
    assert path.parent == tmp_path / "kgs" / "absent" / "models"
    assert not (tmp_path / "kgs").exists()
    workspace.save(small_store(), "mine")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    service = QueryService(tmp_path, use_env_llm=False, progress=False)
    assert [d["name"] for d in service.databases()] == ["mine"]
    model_path(workspace, "mine", "RotatE")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
