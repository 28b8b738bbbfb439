"""The ``kgrecall`` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from pydantic import ValidationError
from tqdm import tqdm

from kgrecall.calibration.vocabulary import Conditioning, Method
from kgrecall.errors import InvalidRequestError, KGRecallError
from kgrecall.kg import DEMO_NAME, KGLoadError, Workspace
from kgrecall.kg.loaders import LOADERS
from kgrecall.settings import settings
from kgrecall.tools.linkpred.defaults import DEFAULT_MODEL, TrainingLoop

Choice = TypeVar("Choice", bound=str)

if TYPE_CHECKING:
    from kgrecall.agents.monitor import Estimate
    from kgrecall.kg import (
        GraphStore,
        KGSchema,
    )
    from kgrecall.tools import QueryNode
    from kgrecall.tools.linkpred import CompletionModel, RankMetrics

#: The calibration store, shared by every KG of a workspace (records are keyed by KG).

app = typer.Typer(help="Recall-calibrated answers over incomplete biomedical knowledge graphs.")
kg_app = typer.Typer(help="Build, import and inspect knowledge graphs.", no_args_is_help=True)
app.add_typer(kg_app, name="kg")

HomeOption = Annotated[
    Path | None,
    typer.Option("--home", help="Data directory (default: $KGRECALL_HOME or ~/.cache/kgrecall)."),
]


def _print_stats(store: GraphStore, path: Path | None = None) -> None:
    stats = store.stats()
    typer.echo(f"KG {store.metadata.name!r}  version {store.version[:12]}")
    if path is not None:
        typer.echo(f"  file: {path}")
    typer.echo(f"  {stats.nodes:,} nodes, {stats.edges:,} edges")
    width = max((len(k) for k in (*stats.nodes_by_type, *stats.edges_by_relation)), default=8)
    typer.echo("  nodes by type:")
    for node_type, count in stats.nodes_by_type.items():
        typer.echo(f"    {node_type:<{width}} {count:>9,}")
    typer.echo("  edges by relation:")
    for relation, count in stats.edges_by_relation.items():
        typer.echo(f"    {relation:<{width}} {count:>9,}")
    skipped = store.metadata.extra.get("skipped")
    if skipped:
        typer.echo("  read but not added (by source and reason):")
        for reason, count in skipped.items():
            typer.echo(f"    {count:>7,}  {reason}")


def _write_indexes(
    workspace: Workspace, name: str, store: GraphStore, *, only_missing: bool = False
) -> None:
    """Write the KG's entity-name tables and vector index (what `ground` and the service load;
    a query never builds them); with ``only_missing``, only those this version lacks."""
    from kgrecall.tools.kg_indexes import INDEX_FOLDER, write_indexes

    folder = workspace.kg_dir(name) / INDEX_FOLDER
    written = write_indexes(store, folder, only_missing=only_missing)
    for kind, path in (("entity names", written.names), ("entity embeddings", written.vectors)):
        if path is not None:
            typer.echo(f"  {kind} indexed: {written.entities:,} entities → {path}")


@kg_app.command("build-demo")
def build_demo(
    full: Annotated[
        bool, typer.Option(help="Build every source whole, not the focused slice.")
    ] = False,
    name: Annotated[str, typer.Option(help="Name to save the KG under.")] = DEMO_NAME,
    force: Annotated[bool, typer.Option(help="Rebuild even if the KG exists.")] = False,
    home: HomeOption = None,
) -> None:
    """Build the biomedical demo KG offline from HPO, GO and ligand–receptor data."""
    from kgrecall.kg import DemoConfig, build_demo_kg
    from kgrecall.kg.demo import DEMO_INPUTS, demo_inputs_digest

    workspace = Workspace(home)
    if workspace.exists(name) and not force:
        store = workspace.load(name)
        typer.echo(f"KG {name!r} already built (use --force to rebuild)")
        extra = store.metadata.extra
        if "demo_config" in extra and extra.get(DEMO_INPUTS) != demo_inputs_digest():
            typer.echo(
                f"  note: built from other bundled tables or build code than this kgrecall "
                f"installation's (its names may be older): `kgrecall kg build-demo --name "
                f"{name} --force` rebuilds it (a changed KG needs recalibrating)"
            )
        _print_stats(store, workspace.graph_path(name))
        _write_indexes(workspace, name, store, only_missing=True)
        return
    store = build_demo_kg(DemoConfig.full() if full else DemoConfig())
    path = workspace.save(store, name)
    _print_stats(store, path)
    _write_indexes(workspace, name, store)
    typer.echo("  sources:")
    for source in store.metadata.sources:
        typer.echo(f"    {source['name']} ({source['version']}) — licence: {source['licence']}")


@kg_app.command("import")
def import_kg(
    source: Annotated[
        str | None, typer.Argument(help="File or dataset name (see --format).")
    ] = None,
    format_name: Annotated[
        str, typer.Option("--format", "-f", help=f"One of: {', '.join(LOADERS)}.")
    ] = "tsv",
    name: Annotated[str, typer.Option(help="Name to save the KG under.")] = "imported",
    allow_new_relations: Annotated[
        bool, typer.Option(help="TSV: declare relations outside kgrecall's vocabulary.")
    ] = False,
    merge: Annotated[
        bool, typer.Option(help="Add to the existing KG of that name (a logged new version).")
    ] = False,
    force: Annotated[bool, typer.Option(help="Replace the existing KG of that name.")] = False,
    home: HomeOption = None,
) -> None:
    """Import a source into a named KG."""
    from kgrecall.kg.loaders import build_store, get_loader, load_tsv

    workspace = Workspace(home)
    loader = get_loader(format_name)
    if loader.name == "tsv":
        if source is None:
            raise InvalidRequestError("--format tsv needs a file argument")
        batch = load_tsv(source, allow_new_relations=allow_new_relations)
    else:
        batch = loader.load(source)
    if workspace.exists(name) and not (merge or force):
        raise InvalidRequestError(
            f"a KG named {name!r} exists; pass --merge to add to it or --force to replace it"
        )
    if merge and workspace.exists(name):  # an ingestion: a logged new version
        store, _ = workspace.ingest(
            name, batch, source=Path(source).name if source else format_name
        )
        path = workspace.graph_path(name)
    else:
        store = build_store([batch], name=name)
        path = workspace.save(store, name)
    _print_stats(store, path)
    _write_indexes(workspace, name, store)


@kg_app.command("add")
def add_command(
    source: Annotated[
        Path | None, typer.Argument(help="Nodes and edges to add: TSV triples or JSONL records.")
    ] = None,
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    remove: Annotated[
        Path | None, typer.Option(help="TSV of head<TAB>relation<TAB>tail edges to remove.")
    ] = None,
    allow_new_relations: Annotated[
        bool, typer.Option(help="Declare relations outside kgrecall's vocabulary.")
    ] = False,
    recalibrate: Annotated[
        bool | None,
        typer.Option(help="Recalibrate now (default: when the KG's ingestion policy says so)."),
    ] = None,
    home: HomeOption = None,
) -> None:
    """Add (and remove) edges and nodes of a KG as a new version; recalibrate by policy."""
    from kgrecall.agents import QueryService
    from kgrecall.kg.history import removal_keys
    from kgrecall.kg.loaders import load_tsv
    from kgrecall.kg.loaders.base import GraphBatch, read_text_lines
    from kgrecall.kg.loaders.records import load_jsonl

    if source is None and remove is None:
        raise InvalidRequestError(
            "nothing to do: give a file of nodes and edges to add, or --remove FILE"
        )
    service = QueryService(home, use_env_llm=False)
    if source is None:
        batch = GraphBatch(service.workspace.load(kg).schema)
    elif source.suffix.lower() in (".jsonl", ".ndjson") or source.name.endswith(".jsonl.gz"):
        batch = load_jsonl(source, allow_new_relations=allow_new_relations)
    else:
        batch = load_tsv(source, allow_new_relations=allow_new_relations)
    removals = removal_keys(read_text_lines(remove), remove) if remove is not None else []
    names = [path.name for path in (source, remove) if path is not None]
    ingestion = service.ingest(kg, batch, removals, source=" + ".join(names))
    change = ingestion.change
    if change.version_after == change.version_before:
        typer.echo(f"KG {kg!r} unchanged (version {change.version_after[:12]})")
        return
    typer.echo(
        f"KG {kg!r}: version {change.version_before[:12]} → {change.version_after[:12]}, "
        f"{change.nodes_added} nodes added"
    )
    for relation in sorted({*change.edges_added, *change.edges_removed}):
        typer.echo(
            f"  {relation:<24} +{change.edges_added.get(relation, 0):<6} "
            f"-{change.edges_removed.get(relation, 0)}"
        )
    plan = ingestion.recalibration
    if recalibrate is False or (recalibrate is None and plan is None):
        policy = service.workspace.policy(kg)
        typer.echo(
            f"not recalibrated (policy: on_ingest {policy.on_ingest}, while_stale "
            f"{policy.while_stale}); queries use "
            + ("the previous calibration, said stale" if policy.while_stale == "previous"
               else "no guarantee")
            + " until `kgrecall calibrate` runs"
        )  # fmt: skip
        return
    if plan is None:
        raise InvalidRequestError(
            f"KG {kg!r} has no earlier calibration and its policy names no topologies to "
            "recalibrate: run `kgrecall calibrate`"
        )
    records, location = service.recalibrate(kg, plan, say=typer.echo)
    typer.echo(
        f"saved {len(records)} calibrations of version {change.version_after[:12]} → {location}"
    )


@kg_app.command("index")
def index_command(
    kg: Annotated[str, typer.Argument(help="KG name.")] = DEMO_NAME,
    only_missing: Annotated[
        bool, typer.Option(help="Write only the indexes this KG version lacks.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Write the KG's entity-name tables and vector index (done by build-demo, import and add;
    for a KG saved another way). Embedding takes minutes on a large KG."""
    workspace = Workspace(home)
    _write_indexes(workspace, kg, workspace.load(kg), only_missing=only_missing)


@kg_app.command("tabulate")
def tabulate_command(
    kg: Annotated[str, typer.Argument(help="KG name.")] = DEMO_NAME,
    model: Annotated[
        str, typer.Option(help="The completion model queries use (as calibrated).")
    ] = DEFAULT_MODEL,
    home: HomeOption = None,
) -> None:
    """Precompute the completion model's projection from every single anchor (a 1p question,
    the branches of an intersection, the first hop of a chain) into the KG's projection table,
    so thorough and exhaustive asks read them instead of running the model. Asks fill the
    table as they go; this fills all of it (about 15 minutes for the demo KG on 2 cores) and
    resumes where it stopped. Rows are per KG version: a changed KG starts a new table."""
    from kgrecall.agents import QueryService

    service = QueryService(home, use_env_llm=False, model=model)
    computed, stored = service.tabulate(kg)
    typer.echo(f"{kg}: {computed} projections computed, {stored} already in the table")


@kg_app.command("policy")
def policy_command(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    on_ingest: Annotated[str | None, typer.Option(help="recalibrate or mark_stale.")] = None,
    while_stale: Annotated[
        str | None, typer.Option(help="previous (stale calibration, said so) or none.")
    ] = None,
    min_change_edges: Annotated[
        int | None, typer.Option(min=1, help="Recalibrate once this many edges changed.")
    ] = None,
    topologies: Annotated[
        list[str] | None, typer.Option("--topologies", "-t", help="What to recalibrate.")
    ] = None,
    alphas: Annotated[list[str] | None, typer.Option("--alphas", "-a")] = None,
    home: HomeOption = None,
) -> None:
    """Show or set what ingestion does to a KG's calibrations."""
    from kgrecall.kg.history import IngestPolicy
    from kgrecall.tools import TOPOLOGIES

    workspace = Workspace(home)
    if not workspace.exists(kg):
        workspace.load(kg)  # the "no KG named …" error
    current = workspace.policy(kg).model_dump()
    changes = {
        "on_ingest": on_ingest,
        "while_stale": while_stale,
        "min_change_edges": min_change_edges,
        "topologies": _choices(topologies, "--topologies", TOPOLOGIES) or None,
        "alphas": [_alpha(value) for value in _split(alphas)] or None,
    }
    updates = {key: value for key, value in changes.items() if value is not None}
    if updates:
        try:
            policy = IngestPolicy.model_validate({**current, **updates})
        except ValidationError as error:
            problem = error.errors()[0]
            raise InvalidRequestError(
                f"--{str(problem['loc'][0]).replace('_', '-')}: {problem['msg']}"
            ) from None
        policy.write(workspace.kg_dir(kg))
        current = policy.model_dump()
    for key, value in current.items():
        typer.echo(f"{key}: {value}")


@kg_app.command("stats")
def stats(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    neo4j: Annotated[bool, typer.Option(help="Read the KG in Neo4j (NEO4J_URI) instead.")] = False,
    database: Annotated[str | None, typer.Option(help="Neo4j database.")] = None,
    home: HomeOption = None,
) -> None:
    """Counts per node type and per relation."""
    store = neo4j_store(database) if neo4j else Workspace(home).load(kg)
    if as_json:
        payload = {"name": store.metadata.name, "version": store.version, **store.stats().as_dict()}
        typer.echo(json.dumps(payload, indent=2))
    else:
        _print_stats(store)


@kg_app.command("subgraph")
def subgraph(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    entity: Annotated[
        list[str], typer.Option("--entity", "-e", help="Seed entity: id, name or synonym.")
    ] = [],  # noqa: B006 - typer reads the default, it is never mutated
    depth: Annotated[int, typer.Option(min=0, help="BFS depth.")] = 1,
    max_nodes: Annotated[int, typer.Option(min=1, help="Stop after this many nodes.")] = 50,
    relation: Annotated[
        list[str], typer.Option("--relation", "-r", help="Only follow these relations.")
    ] = [],  # noqa: B006
    home: HomeOption = None,
) -> None:
    """Print the neighbourhood of entities as natural-language triples."""
    from kgrecall.kg import extract_subgraph

    if not entity:
        raise InvalidRequestError("give at least one --entity")
    store = Workspace(home).load(kg)
    seeds: list[str] = []
    for text in entity:
        found = store.lookup(text)
        if not found:
            store.get_node(text)  # raises with the closest matches
        seeds.extend(node.id for node in found)
    result = extract_subgraph(
        store, seeds, depth=depth, max_nodes=max_nodes, relations=relation or None
    )
    typer.echo(result.as_text())


def neo4j_store(database: str | None, schema: KGSchema | None = None) -> GraphStore:
    """A Neo4jStore from NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD (and NEO4J_DATABASE)."""
    from kgrecall.kg.neo4j_store import Neo4jStore

    return Neo4jStore.from_settings(database=database, schema=schema)


@kg_app.command("push-neo4j")
def push_neo4j(
    kg: Annotated[str, typer.Argument(help="KG name or path to a KG file.")] = DEMO_NAME,
    database: Annotated[
        str | None, typer.Option(help="Neo4j database (default: NEO4J_DATABASE, else server's).")
    ] = None,
    replace: Annotated[bool, typer.Option(help="Delete kgrecall's existing nodes first.")] = False,
    home: HomeOption = None,
) -> None:
    """Load a KG into Neo4j (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD) with its indexes — the
    fulltext index, and the vector index with the entity embeddings when the KG has them
    (`kgrecall kg index NAME`); it is served from there under its workspace name with
    KGRECALL_STORE=neo4j, searched by those indexes."""
    from dataclasses import replace as replaced

    from kgrecall.kg.neo4j_store import Neo4jStore
    from kgrecall.tools.kg_indexes import INDEX_FOLDER
    from kgrecall.tools.vector import VectorIndex

    workspace = Workspace(home)
    source = workspace.load(kg)
    name = kg if workspace.exists(kg) else source.metadata.name
    vectors = (
        VectorIndex.saved(source, workspace.kg_dir(name) / INDEX_FOLDER)
        if workspace.exists(name)
        else None
    )
    target = Neo4jStore.from_settings(
        database=database, schema=source.schema, metadata=replaced(source.metadata, name=name)
    )
    if replace:
        target.clear()
    target.ensure_indexes(vector_dimensions=None if vectors is None else vectors.dimensions)
    target.add_nodes(source.nodes())
    target.add_edges(source.edges())
    typer.echo(f"pushed {source.number_of_nodes():,} nodes and {source.number_of_edges():,} edges")
    if vectors is None:
        typer.echo(
            f"no vector index saved for {name!r}: pushed without embeddings, so the Neo4j KG is "
            f"searched by text only; run `kgrecall kg index {name}` and push again to add them"
        )
    else:
        target.set_embeddings(vectors.embeddings())
        typer.echo(f"pushed {len(vectors.ids):,} entity embeddings ({vectors.dimensions} dims)")
    _print_stats(target)


@kg_app.command("list")
def list_kgs(home: HomeOption = None) -> None:
    """The KGs in the data directory."""
    workspace = Workspace(home)
    for name in workspace.names():
        typer.echo(name)


@kg_app.command("relations")
def relations() -> None:
    """kgrecall's biomedical relation vocabulary."""
    from kgrecall.kg import KGSchema

    for name, meaning in KGSchema.biomedical().relations.items():
        typer.echo(f"{name:<22} {meaning}")


@app.command("train")
def train(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    model: Annotated[
        str,
        typer.Option(
            help="ultra or ultra+rules (fine-tunes the shipped ULTRA), RotatE, ComplEx, ..."
        ),
    ] = "RotatE",
    dim: Annotated[int, typer.Option(min=1, help="Embedding dimension.")] = 200,
    max_epochs: Annotated[int, typer.Option(min=1)] = 200,
    learning_rate: Annotated[float, typer.Option(min=0.0)] = 0.01,
    loop: Annotated[TrainingLoop, typer.Option(help="PyKEEN's training loop.")] = "auto",
    budget_minutes: Annotated[
        float | None, typer.Option(help="Stop training after this much wall time.")
    ] = None,
    seed: Annotated[int, typer.Option()] = 0,
    if_missing: Annotated[
        bool, typer.Option(help="Do nothing when this KG already has a trained model.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Train the link predictor on a KG; print filtered test metrics and the go/no-go verdict.

    ``--model ultra`` (or ``ultra+rules``) fine-tunes the shipped ULTRA weights; zero-shot
    ULTRA and mined rules need no training.
    """
    from kgrecall.agents import QueryService
    from kgrecall.tools.linkpred import TrainingConfig
    from kgrecall.tools.linkpred.registry import needs_training

    service = QueryService(home, use_env_llm=False, model=model, progress=False)
    if if_missing and service.saved_model(kg) is not None:
        typer.echo(f"KG {kg!r} already has a trained {model} model (retrain without --if-missing)")
        return
    config = TrainingConfig(
        model=model,
        embedding_dim=dim,
        max_epochs=max_epochs,
        learning_rate=learning_rate,
        training_loop=loop,
        time_budget_s=None if budget_minutes is None else budget_minutes * 60,
        seed=seed,
    ) if needs_training(model) else None  # fmt: skip
    trained = service.train(kg, config=config, budget_minutes=budget_minutes or 10.0, seed=seed)
    if trained.model is None:
        typer.echo(f"{model}: nothing to train (its rules are mined whenever the KG is loaded)")
        return
    if trained.before is not None and trained.after is not None:
        _print_fine_tuning(kg, trained.model, trained.before, trained.after)
    else:
        _print_training(kg, trained.model)
    typer.echo(f"  saved: {trained.path}")


def _print_fine_tuning(
    kg: str, model: CompletionModel, before: RankMetrics, after: RankMetrics
) -> None:
    """ULTRA fine-tuning: steps, stop reason, test metrics before and after."""
    from kgrecall.tools.linkpred import UltraCompletion

    assert isinstance(model, UltraCompletion) and model.report is not None
    report = model.report
    typer.echo(
        f"{model.name} fine-tuned on {kg!r}: {report.steps} steps, best at {report.best_step}, "
        f"stopped by {report.stopped_by}, {report.seconds:.0f} s"
    )
    typer.echo(f"  triples train/valid/test: {report.n_train}/{report.n_valid}/{report.n_test}")
    for label, metrics in (("zero-shot", before), ("fine-tuned", after)):
        typer.echo(
            f"  {label:<10} filtered test MRR {metrics.mrr:.3f}  Hits@1 {metrics.hits_at_1:.3f}"
            f"  Hits@10 {metrics.hits_at_10:.3f}  ({metrics.n_triples} test triples)"
        )
    if after.mrr < before.mrr:
        typer.echo("  fine-tuning did not help: delete the file to use the zero-shot model")


def _print_training(kg: str, model: CompletionModel) -> None:
    """A KG embedding's training: epochs, stop reason, test metrics, the go/no-go verdict."""
    from kgrecall.tools.linkpred import GO_HITS_AT_10, GO_MRR, LinkPredictor

    assert isinstance(model, LinkPredictor)
    report = model.report
    test = report.test
    typer.echo(
        f"{report.model} on {kg!r} ({report.training_loop}, {report.epochs} epochs, best at "
        f"{report.best_epoch}, stopped by {report.stopped_by}, {report.seconds:.0f} s)"
    )
    typer.echo(f"  triples train/valid/test: {report.n_train}/{report.n_valid}/{report.n_test}")
    typer.echo(
        f"  filtered test MRR {test.mrr:.3f}  Hits@1 {test.hits_at_1:.3f}  "
        f"Hits@3 {test.hits_at_3:.3f}  Hits@10 {test.hits_at_10:.3f}"
    )
    typer.echo(f"  probability calibration: Platt scaling, ECE {report.calibration_ece:.3f}")
    verdict = "GO" if test.go else "NO-GO"
    typer.echo(f"  verdict: {verdict} (needs MRR ≥ {GO_MRR} and Hits@10 ≥ {GO_HITS_AT_10})")


def _split(values: list[str] | None) -> list[str]:
    """Repeated and comma-separated option values, in order."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _choices(values: list[str] | None, option: str, valid: Sequence[Choice]) -> list[Choice]:
    """The comma-separated or repeated ``values`` of ``option``, each one of ``valid``."""
    by_name = {str(choice): choice for choice in valid}
    chosen = _split(values)
    for value in chosen:
        if value not in by_name:
            raise InvalidRequestError(
                f"invalid {option} value {value!r}; valid: {', '.join(by_name)}"
            )
    return [by_name[value] for value in chosen]


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidRequestError(f"invalid --alphas value {text!r}: not a number") from None
    if not 0.0 < value < 1.0:
        raise InvalidRequestError(f"invalid --alphas value {value}: must be in (0, 1)")
    return value


@app.command("calibrate")
def calibrate_command(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    topologies: Annotated[
        list[str] | None,
        typer.Option("--topologies", "-t", help="e.g. 1p,2p,2i (or repeat); default: all nine."),
    ] = None,
    alphas: Annotated[
        list[str] | None,
        typer.Option("--alphas", "-a", help="Risk levels 1 − recall target; default 0.2,0.1."),
    ] = None,
    methods: Annotated[
        list[str] | None, typer.Option("--methods", "-m", help="crc, ltt, coverage; default crc.")
    ] = None,
    conditioning: Annotated[Conditioning, typer.Option(help="Mondrian calibration groups.")] = (
        "none"
    ),
    queries: Annotated[int, typer.Option(min=10, help="Calibration queries per topology.")] = 1000,
    strata: Annotated[int, typer.Option(min=1, help="Missingness strata (10–40 % hidden).")] = 3,
    model: Annotated[
        str,
        typer.Option(help="The completion model queries will use (ultra+rules: no training)."),
    ] = DEFAULT_MODEL,
    no_neural: Annotated[bool, typer.Option(help="Calibrate retrieval only.")] = False,
    seed: Annotated[int, typer.Option()] = 0,
    only_missing: Annotated[
        bool, typer.Option(help="Skip topologies already calibrated for this KG and model.")
    ] = False,
    home: HomeOption = None,
) -> None:
    """Calibrate the gate thresholds of a KG per topology and risk level; store them."""
    from kgrecall.agents import QueryService
    from kgrecall.calibration import METHODS
    from kgrecall.tools import TOPOLOGIES

    chosen_methods = _choices(methods, "--methods", METHODS) or ["crc"]
    chosen_topologies = _choices(topologies, "--topologies", TOPOLOGIES) or list(TOPOLOGIES)
    chosen_alphas = [_alpha(value) for value in _split(alphas)] or [0.2, 0.1]
    service = QueryService(home, use_env_llm=False, model=model)
    records, location = service.calibrate(
        kg=kg,
        topologies=chosen_topologies,
        alphas=chosen_alphas,
        methods=chosen_methods,
        conditioning=conditioning,
        queries=queries,
        strata=strata,
        neural=not no_neural,
        seed=seed,
        only_missing=only_missing,
        say=typer.echo,
    )
    if not records:
        typer.echo(f"KG {kg!r}: every requested topology is already calibrated ({location})")
        return
    version = service.workspace.load(kg).version
    typer.echo(f"calibrated KG {kg!r} version {version[:12]} → {location}")
    typer.echo("  topology  target  method    thresholds by depth      est. recall  set size   n")
    for record in records:
        choice = record.pooled
        thresholds = " ".join(f"{value:.3f}" for value in choice.thresholds)
        typer.echo(
            f"  {record.topology:<8}  {record.target_level:.2f}    {record.method:<8}  "
            f"{thresholds:<24} {choice.estimated_recall:>10.3f}  {choice.mean_set_size:>8.1f}  "
            f"{choice.n:>4}" + (f"  ({len(record.groups)} groups)" if record.groups else "")
        )
        if choice.note:
            typer.echo(f"      note: {choice.note}")


def _read_batch(path: Path) -> list[tuple[object, QueryNode]]:
    """Every line of a batch file, validated before anything runs (errors name the line)."""
    from kgrecall.tools import parse_query

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidRequestError(f"{path}: cannot read the batch file ({error})") from None
    batch: list[tuple[object, QueryNode]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise KGLoadError(path, f"not JSON ({error.msg})", line=number) from None
        if not isinstance(record, dict) or "id" not in record or "query" not in record:
            raise KGLoadError(path, 'expected {"id": ..., "query": {...}}', line=number)
        try:
            query = parse_query(record["query"])
        except ValidationError as error:
            first = error.errors()[0]
            field = "query." + ".".join(str(part) for part in first["loc"])
            raise KGLoadError(path, first["msg"], line=number, field=field) from None
        batch.append((record["id"], query))
    if not batch:
        raise InvalidRequestError(f"{path}: no queries")
    return batch


@app.command("query")
def query_command(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    batch: Annotated[
        Path | None, typer.Option(help='JSONL input: {"id": ..., "query": <QueryTree>} per line.')
    ] = None,
    query: Annotated[str | None, typer.Option(help="One QueryTree as JSON.")] = None,
    output: Annotated[Path | None, typer.Option(help="JSONL output (default: stdout).")] = None,
    level: Annotated[str, typer.Option(help="fast, thorough or exhaustive.")] = "fast",
    recall_target: Annotated[
        float | None, typer.Option(help="Overrides --level, e.g. 0.9.")
    ] = None,
    method: Annotated[Method, typer.Option(help="Calibration method.")] = "crc",
    conditioning: Annotated[Conditioning, typer.Option(help="Mondrian calibration groups.")] = (
        "none"
    ),
    max_results: Annotated[
        int | None, typer.Option(min=1, help="Keep the best N answers (marked truncated).")
    ] = None,
    model: Annotated[
        str,
        typer.Option(
            help="Completion model: ultra+rules, ultra, rules (no training) or a trained one."
        ),
    ] = DEFAULT_MODEL,
    no_neural: Annotated[bool, typer.Option(help="Never use the link predictor.")] = False,
    home: HomeOption = None,
) -> None:
    """Answer QueryTrees at a completeness level; JSONL out with a completeness block each."""
    from kgrecall.agents import QueryService
    from kgrecall.calibration import resolve_level
    from kgrecall.kg import atomic_write_bytes
    from kgrecall.tools import parse_query

    if (batch is None) == (query is None):
        raise InvalidRequestError("give exactly one of --batch FILE or --query JSON")
    resolve_level(level, recall_target)
    if batch is not None:
        items = _read_batch(batch)
    else:
        try:
            items = [(1, parse_query(query or ""))]
        except ValidationError as error:
            raise InvalidRequestError(f"--query: {error.errors()[0]['msg']}") from None
    service = QueryService(home, use_env_llm=False, model=model, progress=False)
    lines = []
    for identifier, tree in tqdm(items, desc="queries", disable=len(items) < 2, file=sys.stderr):
        response = service.query(
            tree,
            kg=kg,
            level=level,
            recall_target=recall_target,
            method=method,
            conditioning=conditioning,
            neural=not no_neural,
            max_results=max_results,
        )
        fields = response.model_dump(mode="json", exclude={"timings"})
        lines.append(json.dumps({"id": identifier, **fields}, ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        atomic_write_bytes(output, text.encode("utf-8"))
        typer.echo(f"{len(lines)} answers → {output}", err=True)


@app.command("ask")
def ask_command(
    question: Annotated[str, typer.Argument(help="A question, e.g. 'Which genes are …?'")],
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    level: Annotated[str, typer.Option(help="fast, thorough or exhaustive.")] = "fast",
    recall_target: Annotated[
        float | None, typer.Option(help="Overrides --level, e.g. 0.9.")
    ] = None,
    max_results: Annotated[int, typer.Option(min=1, help="Answers listed in the report.")] = 20,
    output_format: Annotated[str, typer.Option("--format", help="md or json.")] = "md",
    no_ground: Annotated[bool, typer.Option(help="Skip grounding the report.")] = False,
    home: HomeOption = None,
) -> None:
    """Answer a question: plan → calibrated execution → report → grounding."""
    from kgrecall.agents import QueryService
    from kgrecall.calibration import resolve_level

    if output_format not in ("md", "json"):
        raise InvalidRequestError(f"invalid --format {output_format!r}; valid: md, json")
    resolve_level(level, recall_target)
    service = QueryService(home)

    def progress(node: str) -> None:
        typer.echo(f"  ✓ {node}", err=True)

    response = service.ask(
        question,
        kg=kg,
        level=level,
        recall_target=recall_target,
        max_results=max_results,
        ground=not no_ground,
        on_node=progress,
    )
    if output_format == "json":
        typer.echo(response.model_dump_json(indent=2))
        return
    typer.echo(response.answer)
    completeness = response.completeness
    typer.echo("### Completeness")
    for key in ("level", "recall_target", "estimated_recall", "estimated_recall_confidence",
                "guarantee", "neural_augmented",
                "retrieval_only_hops", "hybrid_hops", "calibration_id", "answer_type_size",
                "retrieved_answers", "predicted_answers"):  # fmt: skip
        typer.echo(f"- {key}: {getattr(completeness, key)}")
    if completeness.abstained:
        typer.echo(f"- abstained: yes ({completeness.abstention_reason})")
    for note in [*completeness.notes, *response.notes]:
        typer.echo(f"> {note}")
    if response.grounding is not None:
        store = service.resources(kg).store
        chains = [t for c in response.grounding.claims for chain in c.evidence for t in chain]
        cited = {t.head for t in chains} | {t.tail for t in chains}
        names = {entity: store.get_node(entity).name for entity in cited if store.has_node(entity)}
        typer.echo("")
        typer.echo(
            response.grounding.to_markdown(names).replace("# Grounding report", "### Grounding", 1)
        )
    timings = ", ".join(f"{k} {v:.0f} ms" for k, v in response.timings.items())
    typer.echo(f"timings: {timings}", err=True)


@app.command("ground")
def ground_command(
    report: Annotated[Path, typer.Argument(help="The report to check (markdown or text).")],
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    output_format: Annotated[str, typer.Option("--format", help="md or json.")] = "md",
    output: Annotated[Path | None, typer.Option(help="Write here (default: stdout).")] = None,
    hub_degree: Annotated[
        int, typer.Option(min=2, help="Nodes with this many edges never carry a path.")
    ] = 200,
    learn: Annotated[
        bool,
        typer.Option(
            "--auto-learn",
            help="After checking, add the report's entities to the KG (provenance auto_learned).",
        ),
    ] = False,
    task: Annotated[str, typer.Option(help="The analysis task, for --auto-learn.")] = "",
    tools: Annotated[
        list[str] | None, typer.Option("--tool", help="A tool the analysis used (repeatable).")
    ] = None,
    home: HomeOption = None,
) -> None:
    """Label every claim of a report grounded / inferred / ungrounded / trivial.

    With OPENAI_API_KEY set, claims are extracted by the LLM (heuristic fallback, noted)."""
    from kgrecall.grounding import auto_learn
    from kgrecall.kg import atomic_write_bytes

    if output_format not in ("md", "json"):
        raise InvalidRequestError(f"invalid --format {output_format!r}; valid: md, json")
    try:
        text = report.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InvalidRequestError(f"{report}: no such file") from None
    except UnicodeDecodeError as error:
        raise InvalidRequestError(
            f"{report}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    if (task or tools) and not learn:
        raise InvalidRequestError(
            "--task and --tool describe the analysis for --auto-learn; add --auto-learn"
        )
    from kgrecall.agents import QueryService

    service = QueryService(home, progress=False)
    result = service.ground(text, kg=kg, hub_degree=hub_degree)
    store = service.resources(kg).store
    if output_format == "json":
        rendered = result.model_dump_json(indent=2) + "\n"
    else:
        chains = [t for c in result.claims for chain in c.evidence for t in chain]
        ids = {t.head for t in chains} | {t.tail for t in chains}
        names = {entity: store.get_node(entity).name for entity in ids}
        rendered = result.to_markdown(names)
    if output is None:
        typer.echo(rendered, nl=False)
    else:
        atomic_write_bytes(output, rendered.encode("utf-8"))
        typer.echo(f"{len(result.claims)} claims → {output}", err=True)
    if learn:
        workspace = service.workspace
        learning = workspace.load(kg)  # a copy: the service's store stays as it was read
        learned = auto_learn(learning, task=task, findings=text, tools=tools or [])
        workspace.save(learning, kg)
        _write_indexes(workspace, kg, learning)
        typer.echo(
            f"auto-learned into {kg!r}: {len(learned.nodes_added)} nodes, "
            f"{learned.edges_added} edges ({learned.edges_skipped_existing} already present); "
            "the KG version changed, so rerun `kgrecall calibrate` before calibrated queries",
            err=True,
        )


def _estimate(estimate: Estimate | None) -> str:
    if estimate is None:
        return "–"
    low, high = estimate.interval
    return f"{estimate.value:.3f} [{low:.3f}, {high:.3f}] n={estimate.n}"


@app.command("monitor")
def monitor_command(
    kg: Annotated[str | None, typer.Option("--kg", help="One KG (default: all).")] = None,
    plot: Annotated[
        Path | None, typer.Option(help="Save a plot of recall of new facts per version (PNG).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    home: HomeOption = None,
) -> None:
    """Recall users got on facts ingested after their queries (needs KGRECALL_QUERY_LOG)."""
    from kgrecall.agents import QueryService
    from kgrecall.agents.monitor import plot_versions

    service = QueryService(
        home, use_env_llm=False, query_log=settings().kgrecall_query_log or "full"
    )
    report = service.monitor(kg)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        typer.echo(
            f"query log: {report.mode}; recall against the answers known now, "
            f"{report.confidence:.0%} intervals (mean per query: Student t; new facts: exact "
            "binomial)"
        )
        typer.echo(
            "  kg            topology  relations         target  queries  mean recall [interval]   "
            "new facts covered [interval]   feedback  drift"
        )
        for row in report.rows:
            typer.echo(
                f"  {row.kg:<12}  {row.topology:<8}  {row.relations:<16}  {row.target:.2f}    "
                f"{row.queries:>7}  "
                f"{_estimate(row.recall):<24}  {_estimate(row.new_facts):<29}  "
                f"-{row.missed_by_feedback}/x{row.wrong_by_feedback:<5} "
                + ("DRIFT" if row.drift else "ok")
                + (f"  ({row.unstored} sets too large to store)" if row.unstored else "")
            )
    if plot is not None:
        plot_versions(report, plot)
        typer.echo(f"plot: {plot}")


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535)] = 8000,
    no_admin_auth: Annotated[
        bool, typer.Option(help="Allow the platform routes without KGRECALL_ADMIN_KEY (local use).")
    ] = False,
    timeout: Annotated[float, typer.Option(min=1, help="Per-request timeout, seconds.")] = 60.0,
    preload: Annotated[
        list[str] | None,
        typer.Option(help="KG to load (build its indexes) at start; repeat for more."),
    ] = None,
    max_loaded_kgs: Annotated[
        int, typer.Option(min=1, help="KGs kept in memory; the least recently used is unloaded.")
    ] = 4,
    home: HomeOption = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs); platform routes need KGRECALL_ADMIN_KEY."""
    import uvicorn

    from kgrecall.agents import QueryService
    from kgrecall.service import create_app

    api = create_app(
        QueryService(home, max_loaded_kgs=max_loaded_kgs),
        allow_unauthenticated_admin=no_admin_auth,
        timeout_s=timeout,
        host=host,
        preload=preload or (),
    )
    uvicorn.run(api, host=host, port=port, log_level="info", http="httptools")


@app.command("mcp")
def mcp_command(
    kg: Annotated[str, typer.Option("--kg", help="KG name.")] = DEMO_NAME,
    home: HomeOption = None,
) -> None:
    """Serve kg_ask / kg_query / kg_ground over MCP (stdio) for chat assistants."""
    from kgrecall.agents import QueryService
    from kgrecall.service import create_mcp_server

    service = QueryService(home, progress=False)
    service.load(kg)  # an unknown KG fails now; the indexes build while the client connects
    create_mcp_server(service, kg=kg).run("stdio")


def main() -> None:
    """Entry point: kgrecall's errors become one clear line on stderr and exit status 2."""
    try:
        app()
    except KGRecallError as error:
        typer.echo(f"error: {error}", err=True)
        sys.exit(2)
