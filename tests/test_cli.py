"""The ``kgrecall kg`` commands, end to end in a temporary KGRECALL_HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from kgrecall.cli import app
from kgrecall.kg import Workspace
from kgrecall.tools import NameTables
from tests.conftest import DATA

runner = CliRunner()


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The real entry point in a subprocess, to see exit codes and stderr as a user does."""
    return subprocess.run(
        [sys.executable, "-m", "kgrecall", *args], capture_output=True, text=True, check=False
    )


def test_build_demo_then_stats_and_subgraph(demo_embeddings_in_isolated_home: Path) -> None:
    isolated_home = demo_embeddings_in_isolated_home
    built = runner.invoke(app, ["kg", "build-demo"])
    assert built.exit_code == 0, built.output
    assert "entity names indexed" in built.output and "entity embeddings indexed" in built.output
    assert "nodes by type:" in built.output and "phenotype" in built.output
    assert "licence: CC BY 4.0" in built.output
    assert Workspace(isolated_home).exists("demo")
    again = runner.invoke(app, ["kg", "build-demo"])
    assert "already built" in again.output and "other bundled tables" not in again.output
    # a demo KG built from other inputs (older name tables, say) is reported, not replaced
    workspace = Workspace(isolated_home)
    older = workspace.load("demo")
    older.metadata.extra["demo_inputs"] = "0" * 16
    workspace.save(older, "demo")
    stale = runner.invoke(app, ["kg", "build-demo"])
    assert "already built" in stale.output and "other bundled tables" in stale.output
    assert workspace.load("demo").metadata.extra["demo_inputs"] == "0" * 16

    stats = runner.invoke(app, ["kg", "stats", "demo", "--json"])
    payload = json.loads(stats.output)
    assert payload["nodes_by_type"]["gene"] > 100
    assert len(payload["version"]) == 64

    sub = runner.invoke(
        app,
        [
            "kg",
            "subgraph",
            "demo",
            "-e",
            "Parkinson disease 4",
            "--depth",
            "1",
            "-r",
            "associated_with",
        ],
    )
    assert sub.exit_code == 0, sub.output
    assert (
        sub.output.strip()
        == "SNCA (NCBIGene:6622) —[associated_with]→ Parkinson disease 4 (OMIM:605543)"
    )


def test_import_tsv_merge_and_errors(isolated_home: Path) -> None:
    first = runner.invoke(app, ["kg", "import", str(DATA / "small.tsv"), "--name", "mine"])
    assert first.exit_code == 0, first.output
    assert "3 edges" in first.output
    # the entity-name tables are written with the KG, for its version
    store = Workspace(isolated_home).load("mine")
    tables = isolated_home / "kgs" / "mine" / "indexes" / "names.json"
    assert NameTables.load(tables, store.version) is not None

    refused = run_cli(
        "kg", "import", str(DATA / "kegg_link.txt"), "--format", "kegg", "--name", "mine"
    )
    assert refused.returncode == 2
    assert "exists; pass --merge" in refused.stderr

    merged = run_cli(
        "kg", "import", str(DATA / "kegg_link.txt"), "-f", "kegg", "--name", "mine", "--merge"
    )
    assert merged.returncode == 0, merged.stderr
    store = Workspace(isolated_home).load("mine")
    assert store.number_of_edges() == 3 + 4
    assert store.has_node("kegg.pathway:hsa05012") and store.has_node("OMIM:168601")

    bad = run_cli("kg", "import", str(DATA / "unknown_relation.tsv"), "--name", "bad")
    assert bad.returncode == 2
    assert (
        "unknown_relation.tsv:2: field 'relation': unknown relation 'causes_mayhem'" in bad.stderr
    )
    assert "Traceback" not in bad.stderr
    assert not Workspace(isolated_home).exists("bad")

    missing = run_cli("kg", "stats", "nothing-here")
    assert missing.returncode == 2
    assert "no KG named 'nothing-here'" in missing.stderr and "mine" in missing.stderr

    unknown = run_cli("kg", "subgraph", "mine", "-e", "NCBIGene:662")
    assert unknown.returncode == 2
    assert "closest matches: NCBIGene:6622" in unknown.stderr


def test_import_pykeen_dataset(isolated_home: Path) -> None:
    result = runner.invoke(app, ["kg", "import", "umls", "--format", "pykeen", "--name", "umls"])
    assert result.exit_code == 0, result.output
    assert "6,529 edges" in result.output


def test_train_prints_metrics_and_verdict_and_saves(isolated_home: Path) -> None:
    runner.invoke(app, ["kg", "import", "nations", "--format", "pykeen", "--name", "nations"])
    result = runner.invoke(
        app,
        [
            "train",
            "--kg",
            "nations",
            "--dim",
            "16",
            "--max-epochs",
            "10",
            "--learning-rate",
            "0.02",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "filtered test MRR" in result.output and "Hits@10" in result.output
    assert "verdict: GO" in result.output or "verdict: NO-GO" in result.output
    from kgrecall.tools.linkpred import LinkPredictor

    workspace = Workspace(isolated_home)
    saved = workspace.kg_dir("nations") / "models" / "rotate.pt"
    predictor = LinkPredictor.load(saved, kg_version=workspace.load("nations").version)
    assert predictor.report.epochs == 10

    refused = run_cli("train", "--kg", "nations", "--model", "GPT")
    assert refused.returncode == 2
    assert "unknown completion model 'GPT'; valid: ultra" in refused.stderr


def test_train_ultra_fine_tunes_the_shipped_weights(isolated_home: Path) -> None:
    runner.invoke(app, ["kg", "import", "nations", "--format", "pykeen", "--name", "nations"])
    result = runner.invoke(
        app, ["train", "--kg", "nations", "--model", "ultra_4g", "--budget-minutes", "0.15"]
    )
    assert result.exit_code == 0, result.output
    assert "ultra_4g fine-tuned on 'nations'" in result.output
    assert "zero-shot  filtered test MRR" in result.output
    assert "fine-tuned filtered test MRR" in result.output
    from kgrecall.tools.linkpred import UltraCompletion

    workspace = Workspace(isolated_home)
    tuned = UltraCompletion.load(workspace.kg_dir("nations") / "models" / "ultra_4g.pt")
    assert tuned.kg_version == workspace.load("nations").version
    assert tuned.report is not None and tuned.report.seconds <= 0.15 * 60 + 30


def test_tsv_to_calibrated_batch_answers(isolated_home: Path, tmp_path: Path) -> None:
    """A plain TSV graph goes all the way to calibrated answers with the CLI alone."""
    from kgrecall.kg.loaders import build_store, load_pykeen_dataset

    nations = build_store([load_pykeen_dataset("nations")], name="nations")
    tsv = tmp_path / "observed.tsv"
    tsv.write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in sorted(nations.triples())))
    imported = runner.invoke(
        app, ["kg", "import", str(tsv), "--name", "nat", "--allow-new-relations"]
    )
    assert imported.exit_code == 0, imported.output
    missing = runner.invoke(app, ["calibrate", "--kg", "nat", "--model", "RotatE"])
    assert missing.exit_code != 0
    assert "kgrecall train --kg nat --model RotatE" in str(missing.exception)
    # the default model, zero-shot ULTRA, needs no training
    calibrated = runner.invoke(
        app,
        ["calibrate", "--kg", "nat", "--topologies", "1p,2i", "-a", "0.2", "--queries", "120",
         "--strata", "2"],
    )  # fmt: skip
    assert calibrated.exit_code == 0, calibrated.output
    assert "1p        0.80    crc" in calibrated.output
    assert "reduced graph" not in calibrated.output  # nothing trained per stratum
    again = runner.invoke(
        app,
        ["calibrate", "--kg", "nat", "--topologies", "1p,2i", "-a", "0.2", "--queries", "120",
         "--strata", "2", "--only-missing"],
    )  # fmt: skip
    assert "already calibrated" in again.output  # nothing recomputed
    trained = runner.invoke(app, ["train", "--kg", "nat", "--dim", "16", "--max-epochs", "10"])
    assert trained.exit_code == 0, trained.output
    retrain = runner.invoke(app, ["train", "--kg", "nat", "--if-missing"])
    assert "already has a trained RotatE model" in retrain.output
    embedding = runner.invoke(
        app,
        ["calibrate", "--kg", "nat", "--model", "RotatE", "-t", "1p", "-a", "0.2",
         "--queries", "60", "--strata", "1"],
    )  # fmt: skip
    assert embedding.exit_code == 0, embedding.output
    assert "training RotatE on the reduced graph" in embedding.output
    refused_topology = run_cli(
        "calibrate", "--kg", "nat", "-t", "1p,4p", "--home", str(isolated_home)
    )
    assert refused_topology.returncode == 2
    assert "invalid --topologies value '4p'; valid: 1p, 2p" in refused_topology.stderr

    batch = tmp_path / "queries.jsonl"
    one_hop = {"op": "project", "relation": "embassy", "input": {"op": "entity", "id": "uk"}}
    two_hop = {"op": "project", "relation": "embassy", "input": one_hop}
    batch.write_text(
        json.dumps({"id": "a", "query": one_hop}) + "\n\n" + json.dumps({"id": 7, "query": two_hop})
    )
    output = tmp_path / "answers.jsonl"
    answered = runner.invoke(
        app,
        ["query", "--kg", "nat", "--batch", str(batch), "--level", "thorough",
         "--output", str(output), "--max-results", "3"],
    )  # fmt: skip
    assert answered.exit_code == 0, answered.output
    first, second = (json.loads(line) for line in output.read_text().splitlines())
    assert first["id"] == "a" and second["id"] == 7
    assert 0 < len(first["answers"]) <= 3
    answer = first["answers"][0]
    # the same fields as the HTTP QueryResponse (one serialisation)
    assert set(first) == {"id", "answers", "total", "truncated", "evidence_truncated",
                          "completeness"}  # fmt: skip
    assert set(answer) == {"id", "name", "type", "score", "found_by", "evidence"}
    assert answer["found_by"] in ("graph_traversal", "neural_completion")
    assert answer["evidence"][0]["head"] == "uk" or answer["evidence"][0]["tail"] == "uk"
    block = first["completeness"]
    assert block["level"] == "thorough" and block["calibration_id"]
    assert block["guarantee"].startswith("expected recall ≥ 0.80 (conformal risk control)")
    assert 0 < block["estimated_recall"] <= 1
    assert first["truncated"] == (first["total"] > 3)
    assert second["completeness"]["guarantee"].startswith("none: topology 2p is not calibrated")
    # --no-neural answers with a retrieval-only calibration, --conditioning picks a Mondrian one
    retrieval_only = runner.invoke(
        app,
        ["calibrate", "--kg", "nat", "--no-neural", "-t", "1p", "-a", "0.2", "--queries", "60",
         "--strata", "1"],
    )  # fmt: skip
    assert retrieval_only.exit_code == 0, retrieval_only.output
    one = json.dumps(one_hop)
    plain = runner.invoke(
        app, ["query", "--kg", "nat", "--query", one, "--level", "thorough", "--no-neural"]
    )
    assert plain.exit_code == 0, plain.output
    without_model = json.loads(plain.output)["completeness"]
    assert without_model["calibration_id"] not in (None, block["calibration_id"])
    assert not without_model["neural_augmented"]
    grouped = runner.invoke(
        app, ["query", "--kg", "nat", "--query", one, "--level", "thorough",
              "--conditioning", "relation"],
    )  # fmt: skip
    assert json.loads(grouped.output)["completeness"]["guarantee"].startswith("none: ")
    unknown = run_cli("query", "--kg", "nat", "--query", one, "--conditioning", "anchor",
                      "--home", str(isolated_home))  # fmt: skip
    assert unknown.returncode == 2 and "'anchor' is not one of" in unknown.stderr

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": 1, "query": one_hop}) + '\n{"id": 2, "query": {"op": "x"}}\n')
    refused = run_cli("query", "--kg", "nat", "--batch", str(bad), "--home", str(isolated_home))
    assert refused.returncode == 2
    assert f"{bad}:2" in refused.stderr and "query" in refused.stderr
    assert not (tmp_path / "nothing.jsonl").exists()


def test_train_rules_says_there_is_nothing_to_train(isolated_home: Path) -> None:
    runner.invoke(app, ["kg", "import", "nations", "--format", "pykeen", "--name", "nations"])
    result = runner.invoke(app, ["train", "--kg", "nations", "--model", "rules"])
    assert result.exit_code == 0, result.output
    assert "rules: nothing to train" in result.output
    assert not (Workspace(isolated_home).kg_dir("nations") / "models").exists() or not any(
        (Workspace(isolated_home).kg_dir("nations") / "models").iterdir()
    )


def test_kg_add_tsv_jsonl_and_removals_make_logged_versions(
    isolated_home: Path, tmp_path: Path
) -> None:
    imported = runner.invoke(app, ["kg", "import", str(DATA / "small.tsv"), "--name", "mine"])
    assert imported.exit_code == 0, imported.output
    workspace = Workspace(isolated_home)
    first = workspace.load("mine").version
    # an untyped id the KG holds is that node; a new node comes typed from the JSONL
    additions = tmp_path / "more.tsv"
    additions.write_text("UniProtKB:P37840\tinteracts_with\tUniProtKB:P10636\n"
                         "NCBIGene:6622\thas_phenotype\tHP:0002322\n")  # fmt: skip
    refused = runner.invoke(app, ["kg", "add", str(additions), "--kg", "mine"])
    assert refused.exit_code != 0 and "unknown node 'HP:0002322' has no type" in str(
        refused.exception
    )
    assert workspace.load("mine").version == first  # nothing written
    records = tmp_path / "more.jsonl"
    records.write_text(
        '{"kind": "node", "id": "HP:0002322", "type": "phenotype", "name": "Resting tremor"}\n'
        '{"head": "NCBIGene:6622", "relation": "has_phenotype", "tail": "HP:0002322"}\n'
    )
    added = runner.invoke(app, ["kg", "add", str(records), "--kg", "mine"])
    assert added.exit_code == 0, added.output
    assert "1 nodes added" in added.output and "has_phenotype" in added.output
    assert "+1" in added.output and "not recalibrated" in added.output
    removals = tmp_path / "remove.tsv"
    removals.write_text("NCBIGene:6622\thas_phenotype\tHP:0001300\n")
    removed = runner.invoke(app, ["kg", "add", "--kg", "mine", "--remove", str(removals)])
    assert removed.exit_code == 0, removed.output
    assert "-1" in removed.output
    entries = workspace.history("mine").entries()
    assert [e.source for e in entries] == ["more.jsonl", "remove.tsv"]
    assert entries[0].version_before == first
    assert entries[1].edges_removed == {"has_phenotype": 1}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"head": "A:1", "relation": "cures", "tail": "B:2"}\n')
    failed = runner.invoke(app, ["kg", "add", str(bad), "--kg", "mine"])
    assert "bad.jsonl:1: field relation: unknown relation 'cures'" in str(failed.exception)


def test_kg_policy_shows_and_sets_with_clear_errors(isolated_home: Path) -> None:
    runner.invoke(app, ["kg", "import", str(DATA / "small.tsv"), "--name", "mine"])
    shown = runner.invoke(app, ["kg", "policy", "--kg", "mine"])
    assert "on_ingest: recalibrate" in shown.output and "while_stale: previous" in shown.output
    changed = runner.invoke(
        app, ["kg", "policy", "--kg", "mine", "--on-ingest", "mark_stale", "-t", "1p,2p"]
    )
    assert changed.exit_code == 0, changed.output
    assert "on_ingest: mark_stale" in changed.output and "'1p', '2p'" in changed.output
    bad = runner.invoke(app, ["kg", "policy", "--kg", "mine", "--while-stale", "maybe"])
    assert bad.exit_code != 0 and "--while-stale" in str(bad.exception)
    assert Workspace(isolated_home).policy("mine").on_ingest == "mark_stale"


def test_import_merge_is_a_logged_ingestion(isolated_home: Path, tmp_path: Path) -> None:
    """Untyped ids of nodes the KG already types are those nodes, not type conflicts."""
    runner.invoke(app, ["kg", "import", str(DATA / "small.tsv"), "--name", "mine"])
    more = tmp_path / "more.tsv"
    more.write_text("NCBIGene:6622\tassociated_with\tOMIM:168601\n"
                    "UniProtKB:P10636\tinteracts_with\tUniProtKB:P37840\n")  # fmt: skip
    merged = runner.invoke(app, ["kg", "import", str(more), "--name", "mine", "--merge"])
    assert merged.exit_code == 0, merged.output
    (entry,) = Workspace(isolated_home).history("mine").entries()
    assert entry.edges_added == {"interacts_with": 1} and entry.source == "more.tsv"
    store = Workspace(isolated_home).load("mine")
    assert store.get_node("uniprot:P10636").type == "protein"  # ids as normalised


def test_train_loop_is_one_of_pykeens(isolated_home: Path) -> None:
    refused = run_cli("train", "--kg", "nat", "--loop", "bogus", "--home", str(isolated_home))
    assert refused.returncode == 2 and "'bogus' is not one of 'auto', 'lcwa', 'slcwa'" in (
        " ".join(refused.stderr.replace("│", " ").split())
    )


def test_tabulate_fills_the_projection_table_once(isolated_home: Path) -> None:
    assert (
        runner.invoke(app, ["kg", "import", str(DATA / "small.tsv"), "--name", "mine"]).exit_code
        == 0
    )
    first = runner.invoke(app, ["kg", "tabulate", "mine"])
    assert first.exit_code == 0, first.output
    computed = int(first.output.split("mine: ")[1].split()[0])
    # each relation both ways from every entity of its head / tail type: associated_with and
    # has_phenotype from the one gene and their one tail each, interacts_with from 2 proteins
    assert computed == 2 + 2 + 4
    assert f"mine: {computed} projections computed, 0 already in the table" in first.output
    again = runner.invoke(app, ["kg", "tabulate", "mine"])
    assert f"mine: 0 projections computed, {computed} already in the table" in again.output
    assert (isolated_home / "kgs" / "mine" / "indexes" / "projections.sqlite").is_file()
    unknown = run_cli("kg", "tabulate", "nothing-here")
    assert unknown.returncode != 0 and "no KG named 'nothing-here'" in unknown.stderr
