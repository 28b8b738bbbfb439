"""Abstention said plainly on every surface: Python, HTTP, MCP and the CLI.

A calibration on too few queries for its target can only promise the target by returning the
whole answer type (t = 0). Queries then report ``abstained: true`` with the reason and the
size of the answer type, list the retrieved answers first and respect ``max_results``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kgrecall.agents import QueryPlan, QueryService, template_report
from kgrecall.kg import Workspace
from kgrecall.kg.loaders import build_store, load_pykeen_dataset
from kgrecall.service import create_app
from kgrecall.tools import parse_query

KG = "nat"
TREE = {"op": "project", "relation": "embassy", "input": {"op": "entity", "id": "uk"}}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Nations with a 1p calibration at target 0.9 from only 5 queries: t = 0."""
    home = tmp_path_factory.mktemp("abstain-home")
    Workspace(home).save(build_store([load_pykeen_dataset("nations")], name=KG), KG)
    service = QueryService(home, use_env_llm=False, progress=False)
    (record,), _ = service.calibrate(
        kg=KG, topologies=["1p"], alphas=[0.1], queries=5, strata=1, say=lambda _: None
    )
    assert record.pooled.t == 0.0 and record.pooled.note  # too few queries: everything
    return home


def check(completeness: dict[str, object], answers: list[dict[str, object]], total: int) -> None:
    assert completeness["abstained"] is True
    reason = str(completeness["abstention_reason"])
    assert "no useful guarantee" in reason and "14 entities of the answer type" in reason
    assert completeness["answer_type_size"] == 14 and total == 14
    assert len(answers) == 3  # max_results respected
    retrieved = int(str(completeness["retrieved_answers"]))
    assert retrieved >= 1
    assert all(a["found_by"] == "graph_traversal" for a in answers[:retrieved])


def test_the_report_says_it_abstained(home: Path) -> None:
    service = QueryService(home, use_env_llm=False, progress=False)
    resources = service.resources(KG)
    tree = parse_query(TREE)
    answer = resources.retriever.query(tree, level="exhaustive")
    plan = QueryPlan.of("Which nations does the UK have an embassy in?", tree, None, [], [])
    report = template_report(
        plan, answer.top(3), answer.completeness, resources.store, max_results=3,
        total=answer.total,
    )  # fmt: skip
    assert "Abstained: no useful guarantee at this level for this query" in report
    assert "The calibrated set is the whole answer type (14 entities)" in report
    assert report.count("\n#### ") == 3  # max_results respected


def test_python_and_http(home: Path) -> None:
    service = QueryService(home, use_env_llm=False, progress=False)
    direct = service.query(TREE, kg=KG, level="exhaustive", max_results=3)
    check(
        direct.completeness.model_dump(),
        [a.model_dump() for a in direct.answers],
        direct.total,
    )
    assert direct.truncated
    with TestClient(create_app(service, allow_unauthenticated_admin=True)) as client:
        reply = client.post(
            "/v1/query/structured",
            json={"query": TREE, "completeness": "exhaustive", "max_results": 3, "database": KG},
        )
    assert reply.status_code == 200
    body = reply.json()
    check(body["completeness"], body["answers"], body["total"])


@pytest.mark.timeout(300)
def test_mcp(home: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kgrecall", "mcp", "--kg", KG, "--home", str(home)],
        env={"OPENAI_API_KEY": "", "HF_HUB_OFFLINE": "1"},
    )

    async def session() -> object:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await client.call_tool(
                "kg_query", {"query": TREE, "level": "exhaustive", "max_results": 3}
            )

    result = anyio.run(session)
    structured = getattr(result, "structured_content", None)
    body = structured or json.loads(result.content[0].text)  # type: ignore[attr-defined]
    check(body["completeness"], body["answers"], body["total"])


def test_cli(home: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "kgrecall", "query", "--kg", KG, "--query", json.dumps(TREE),
         "--level", "exhaustive", "--max-results", "3", "--home", str(home)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    line = json.loads(run.stdout)
    check(line["completeness"], line["answers"], line["total"])
