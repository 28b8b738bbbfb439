"""The TwoPhaseAgent and QueryService offline on the demo KG, the LangChain tools, `ask`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from typer.testing import CliRunner

from kgrecall.agents import NODES, QueryService, make_agent_tools
from kgrecall.cli import app
from kgrecall.kg import KGError
from kgrecall.kg.errors import KGNotFoundError
from tests.conftest import PD4_GENES

QUESTION = "Which phenotypes do diseases associated with SNCA have?"


def test_ask_end_to_end_offline(service: QueryService) -> None:
    seen: list[str] = []
    response = service.ask(QUESTION, max_results=5, on_node=seen.append)
    assert seen == list(NODES)  # progress: every node, in order
    assert response.plan.topology == "2p" and response.plan.planner == "offline"
    assert response.total == 19 and response.truncated and len(response.answers) == 5
    assert response.completeness.level == "fast"
    assert response.completeness.guarantee.startswith("none: fast level")
    # Every answer is a real 2-hop consequence of SNCA, with its evidence chain.
    store = service.resources("demo").store
    for answer in response.answers:
        head, tail = answer.evidence
        assert head.head == "NCBIGene:6622" and head.relation == "associated_with"
        assert tail.head == head.tail and tail.tail == answer.id
        assert store.get_edge(tail.head, "has_phenotype", answer.id) is not None
    assert {t.head for t in response.sources} >= {"NCBIGene:6622"}
    # The findings carry their labels from the evidence (not re-read from the report): one
    # claim per evidence edge of the shown answers, each a KG edge, spans in the report.
    grounding = response.grounding
    assert grounding is not None
    written = [t for answer in response.answers for t in answer.evidence]
    assert [c.evidence for c in grounding.claims] == [[[t]] for t in written]
    assert grounding.counts["grounded"] == len(written) == 10
    for claim in grounding.claims:
        assert response.answer[claim.start : claim.end] == claim.text
        [triple] = claim.evidence[0]
        assert store.get_edge(triple.head, triple.relation, triple.tail) is not None
    assert set(response.timings) >= {"plan_ms", "execute_ms", "synthesize_ms", "ground_ms"}


def test_yes_no_questions_answer_yes_or_not_found(service: QueryService) -> None:
    """The entity before the relation phrase is the candidate; the verdict reads the whole
    answer set, not only the answers shown."""
    yes = service.ask("Is SNCA associated with Parkinson disease 4?", max_results=1, ground=False)
    assert yes.plan.candidate is not None and yes.plan.candidate.id == "NCBIGene:6622"
    assert "**Yes**: SNCA (NCBIGene:6622) is among the answers." in yes.answer
    no = service.ask("Is LRRK2 associated with Parkinson disease 4?", ground=False)
    assert no.plan.candidate is not None and no.plan.candidate.name == "LRRK2"
    assert "LRRK2" not in {a.name for a in no.answers}
    assert "**Not found**: LRRK2 (NCBIGene:120892) is not among the" in no.answer


def test_thorough_without_calibration_says_so(service: QueryService) -> None:
    response = service.ask(QUESTION, level="thorough", ground=False)
    assert response.grounding is None
    assert response.completeness.recall_target == pytest.approx(0.8)
    assert response.completeness.guarantee.startswith("none:")  # nothing calibrated here


def test_structured_query_and_ground(service: QueryService) -> None:
    tree = PD4_GENES
    response = service.query(tree, max_results=10)
    assert [a.id for a in response.answers] == ["NCBIGene:6622"]
    result = service.ground("SNCA is associated with Parkinson disease 4.")
    assert result.claims[0].label == "grounded"


def test_checkpointer_keeps_the_conversation(demo_home: Path) -> None:
    chat = QueryService(demo_home, use_env_llm=False, progress=False, checkpointer=InMemorySaver())
    chat.ask("Which genes are associated with Parkinson disease 4?", thread_id="t1", ground=False)
    chat.ask(QUESTION, thread_id="t1", ground=False)
    state = chat.agent("demo").graph.get_state({"configurable": {"thread_id": "t1"}})
    assert state.values["history"] == [
        "Which genes are associated with Parkinson disease 4?",
        QUESTION,
    ]


def test_concurrent_calls_share_one_load_and_agree(demo_home: Path) -> None:
    fresh = QueryService(demo_home, use_env_llm=False, progress=False)
    questions = [QUESTION, "Which genes are associated with Parkinson disease 4?"] * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda q: fresh.ask(q, ground=False), questions))
    assert len(fresh._resources) == 1
    for first, again in zip(answers[:2], answers[2:], strict=False):
        assert [a.id for a in first.answers] == [a.id for a in again.answers]


def test_bad_requests_are_clear_errors(service: QueryService, demo_home: Path) -> None:
    with pytest.raises(KGNotFoundError, match="no KG named 'nope'"):
        service.ask(QUESTION, kg="nope")
    with pytest.raises(KGError, match="max_results must be between 1 and 1000"):
        service.ask(QUESTION, max_results=5000)
    with pytest.raises(KGError, match="unknown completeness level 'instant'"):
        service.ask(QUESTION, level="instant")


def test_langchain_tools(service: QueryService) -> None:
    tools = {tool.name: tool for tool in make_agent_tools(service)}
    assert set(tools) == {"kg_ask", "kg_query", "kg_ground", "kg_search", "kg_schema"}
    call = {"name": "kg_query", "type": "tool_call", "id": "1"}
    message = tools["kg_query"].invoke(
        {
            **call,
            "args": {
                "query": {
                    "op": "project",
                    "relation": "associated_with",
                    "inverse": True,
                    "input": {"op": "entity", "id": "OMIM:605543"},
                },
                "recall_target": 0.9,
            },
        }
    )
    assert "SNCA (NCBIGene:6622)" in message.content and "guarantee none" in message.content
    assert message.artifact.completeness.recall_target == pytest.approx(0.9)
    asked = tools["kg_ask"].invoke({**call, "name": "kg_ask", "args": {"question": QUESTION}})
    assert asked.artifact.plan.topology == "2p"
    grounded = tools["kg_ground"].invoke(
        {
            **call,
            "name": "kg_ground",
            "args": {"report": "SNCA is associated with Parkinson disease 4."},
        }
    )
    assert "✅" in grounded.content
    schema = tools["kg_query"].args_schema.model_json_schema()  # type: ignore[union-attr]
    assert "recall_target" in schema["properties"]


def test_an_outer_llm_can_plan_with_search_and_schema(service: QueryService) -> None:
    """kg_schema's relations and example trees, kg_search's ids: enough to write a tree."""
    tools = {tool.name: tool for tool in make_agent_tools(service)}
    call = {"type": "tool_call", "id": "1", "args": {}}
    described = tools["kg_schema"].invoke({**call, "name": "kg_schema"})
    relations = {r.name: r for r in described.artifact.relations}
    assert "has_phenotype: shows a phenotype; disease→phenotype" in described.content
    assert '"inverse": true' in described.content  # the tree grammar is described
    store = service.resources("demo").store
    for relation in relations.values():  # every example tree runs and answers
        assert service.query(relation.example, max_results=1).total > 0
        counted = sum(s.edges for s in relation.signatures)
        assert counted == sum(1 for e in store.edges() if e.relation == relation.name)
    found = tools["kg_search"].invoke(
        {**call, "name": "kg_search", "args": {"text": "parkin", "node_types": ["gene"]}}
    )
    assert found.artifact.linked and found.artifact.hits[0].name == "PRKN"
    assert all(hit.type == "gene" for hit in found.artifact.hits)
    unknown = service.search("zzqx unknown thing", k=3)
    assert not unknown.linked and len(unknown.hits) <= 3
    assert (
        "nothing linked"
        in tools["kg_search"]
        .invoke({**call, "name": "kg_search", "args": {"text": "zzqx unknown thing"}})
        .content
    )
    with pytest.raises(KGError, match="k must be between"):
        service.search("SNCA", k=0)


def test_ask_command(demo_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRECALL_HOME", str(demo_home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = CliRunner().invoke(
        app, ["ask", "Which genes are associated with Parkinson disease 4?", "--max-results", "3"]
    )
    assert result.exit_code == 0, result.output
    assert (
        "SNCA (NCBIGene:6622) is associated with Parkinson disease 4 (OMIM:605543)."
        in result.output
    )
    assert "### Completeness" in result.output and "✅ **grounded**" in result.output


def test_an_empty_answer_says_why(service: QueryService) -> None:
    """PINK1 encodes no protein the demo KG holds: the report says which hop found nothing."""
    response = service.ask(
        "Which proteins interact with the protein encoded by PINK1?", ground=False
    )
    assert response.total == 0
    reason = "hop encodes (depth 1) reached nothing: PINK1 (NCBIGene:65018) has no encodes edge"
    assert f"No answers: {reason} in the KG." in response.answer
    assert any(reason in note for note in response.completeness.notes)


def test_answers_are_of_the_kind_the_question_asks_for(service: QueryService) -> None:
    """Genes and diseases both have phenotypes: "which diseases" gets diseases only."""
    response = service.ask("Which diseases present with dystonia?", ground=False, max_results=1000)
    assert response.plan.answer_type == "disease" and response.total == len(response.answers)
    assert response.answers and {answer.type for answer in response.answers} == {"disease"}
    genes = service.ask("Which genes are annotated with dystonia?", ground=False, max_results=1000)
    assert genes.answers and {answer.type for answer in genes.answers} == {"gene"}
