"""The LLM path: planner and synthesis through a tool-calling fake model and through the
real openai client against the local stub server; every failure falls back offline."""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr

from kgrecall.agents import QueryService
from kgrecall.llm import LLMSettings, chat_model
from tests.agents.conftest import ScriptedToolModel, tool_reply
from tests.conftest import PD4_GENES
from tests.llm_server import OpenAIStub, Reply

QUESTION = "Which genes are associated with Parkinson disease 4?"
TREE = PD4_GENES


def test_llm_plans_and_writes_within_the_answer_set(demo_home: Path) -> None:
    model = ScriptedToolModel(
        script=[
            tool_reply(
                "LLMQuery", {"query": TREE, "answer_type": "gene", "reading": "genes of PD4"}
            ),
            tool_reply(
                "Synthesis",
                {
                    "summary": "One gene, SNCA, is linked to this form of Parkinson disease.",
                    "answers": [{"id": "NCBIGene:6622", "rationale": "HPO-derived association"}],
                },
            ),
        ]
    )
    service = QueryService(demo_home, llm=model, progress=False)
    response = service.ask(QUESTION, ground=False)
    assert response.plan.planner == "llm" and response.plan.query.model_dump() == TREE
    assert response.synthesis == "llm" and not response.notes[1:]
    assert "One gene, SNCA" in response.answer and "HPO-derived association" in response.answer
    prompt = model.seen[0][1].content
    assert "associated_with: gene → disease" in prompt and "OMIM:605543" in prompt


def test_llm_answers_outside_the_answer_set_are_refused(demo_home: Path) -> None:
    model = ScriptedToolModel(
        script=[
            tool_reply("LLMQuery", {"query": TREE, "answer_type": "gene"}),
            tool_reply(
                "Synthesis",
                {"summary": "SNCA.", "answers": [{"id": "NCBIGene:120892", "rationale": "LRRK2"}]},
            ),
        ]
    )
    response = QueryService(demo_home, llm=model, progress=False).ask(QUESTION, ground=False)
    assert response.synthesis == "template"
    assert any("outside the answer set: NCBIGene:120892" in note for note in response.notes)
    assert "NCBIGene:120892" not in response.answer  # never presented as an answer


def test_llm_summary_naming_another_gene_is_refused(demo_home: Path) -> None:
    model = ScriptedToolModel(
        script=[
            tool_reply("LLMQuery", {"query": TREE}),
            tool_reply("Synthesis", {"summary": "SNCA and LRRK2 both matter.", "answers": []}),
        ]
    )
    response = QueryService(demo_home, llm=model, progress=False).ask(QUESTION, ground=False)
    assert response.synthesis == "template"
    assert any("mentions LRRK2" in note for note in response.notes)


def test_invalid_llm_plans_fall_back_to_the_offline_planner(demo_home: Path) -> None:
    wrong_direction = {**TREE, "inverse": False}  # diseases → genes does not exist forward
    for bad, reason in [
        ({"query": {"op": "project", "relation": "cures", "input": TREE["input"]}}, "does not fit"),
        ({"query": {"op": "teleport"}}, "not a QueryTree"),
        ({"query": wrong_direction}, "no edge of the KG does"),
        # genes associated with PD4 asked to be phenotypes: no edge reaches those
        ({"query": {**TREE, "types": ["phenotype"]}}, "from disease to phenotype, which no edge"),
    ]:
        model = ScriptedToolModel(script=[tool_reply("LLMQuery", bad)])
        response = QueryService(demo_home, llm=model, progress=False).ask(QUESTION, ground=False)
        assert response.plan.planner == "offline" and response.plan.query.model_dump() == TREE
        assert reason in response.notes[0], response.notes


def test_real_client_timeouts_and_malformed_output_fall_back(
    demo_home: Path, openai_stub: OpenAIStub
) -> None:
    model = chat_model(
        LLMSettings(api_key=SecretStr("k"), base_url=openai_stub.base_url, timeout_s=1)
    )
    service = QueryService(demo_home, llm=model, progress=False)
    openai_stub.script(
        Reply(delay_s=3, content="{}"),  # planner: timeout
        Reply(tool="Synthesis", arguments={"summary": 3}),  # synthesis: malformed
    )
    response = service.ask(QUESTION, ground=False)
    assert response.plan.planner == "offline" and "timed out" in response.notes[0]
    assert response.synthesis == "template" and "not a valid Synthesis" in response.notes[1]
    assert [a.id for a in response.answers] == ["NCBIGene:6622"]
    openai_stub.script(
        Reply(tool="LLMQuery", arguments={"query": TREE, "answer_type": "gene"}),
        Reply(tool="Synthesis", arguments={"summary": "SNCA it is.", "answers": []}),
    )
    over_http = service.ask(QUESTION, ground=False)
    assert over_http.plan.planner == "llm" and over_http.synthesis == "llm"
    assert openai_stub.requests[-2]["tool_choice"]["function"]["name"] == "LLMQuery"


def test_an_llm_plan_may_keep_a_hops_node_types(demo_home: Path) -> None:
    """ "Which diseases present with dystonia": the LLM's tree names the type the offline
    reader would; it is checked against the signatures and kept."""
    tree = {"op": "project", "relation": "has_phenotype", "inverse": True,
            "types": ["disease"], "input": {"op": "entity", "id": "HP:0001332"}}  # fmt: skip
    model = ScriptedToolModel(
        script=[tool_reply("LLMQuery", {"query": tree, "answer_type": "disease"})]
    )
    service = QueryService(demo_home, llm=model, progress=False)
    response = service.ask("Which diseases present with dystonia?", ground=False, max_results=500)
    assert response.plan.planner == "llm" and response.plan.answer_type == "disease"
    assert response.plan.query.model_dump(mode="json") == tree
    assert response.answers and {answer.type for answer in response.answers} == {"disease"}
