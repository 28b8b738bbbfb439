"""The TwoPhaseAgent: a LangGraph ``StateGraph`` plan → execute → synthesize → ground.

Grounding covers the report's findings (the answers section; the lines on how the question
was read and what is guaranteed are not claims about biology), with spans in the whole report:
the evidence sentences carry their label from the evidence itself (a KG edge is grounded, a
predicted edge inferred), and only prose an LLM wrote (summary, rationales) is checked as
text by the validator.

Nodes are plain functions over a typed state (``AgentState``); each records its time in
``timings``. ``run`` reports each node's name as it finishes (progress for the CLI and for
callers that want to show it). With a checkpointer (e.g. LangGraph's ``InMemorySaver``) and a
``thread_id``, the questions of a conversation accumulate in ``history``.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from kgrecall.agents.planner import QueryPlan
from kgrecall.agents.synthesis import evidence_claims, llm_synthesis, template_report
from kgrecall.calibration import AnswerPage, CalibratedRetriever
from kgrecall.grounding import GroundingResult, KGGroundingValidator
from kgrecall.llm import LLMError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

NODES = ("plan", "execute", "synthesize", "ground")


class AgentState(TypedDict, total=False):
    """What flows through the graph."""

    question: str
    level: str
    recall_target: float | None
    max_results: int
    ground: bool
    plan: QueryPlan
    answer: AnswerPage
    #: For a yes/no question: whether the whole answer set holds the plan's candidate.
    candidate_found: bool | None
    report: str
    synthesis: str
    #: Passages of the report an LLM wrote (summary, rationales): grounded as text.
    prose: list[str]
    grounding: GroundingResult | None
    notes: Annotated[list[str], operator.add]
    history: Annotated[list[str], operator.add]
    timings: Annotated[dict[str, float], lambda old, new: {**old, **new}]


class TwoPhaseAgent:
    """Phase 1 plans (offline or LLM), phase 2 executes through the conformal gates."""

    def __init__(
        self,
        planner: Callable[[str], QueryPlan],
        retriever: CalibratedRetriever,
        validator: KGGroundingValidator,
        *,
        llm: BaseChatModel | None = None,
        checkpointer: Checkpointer = None,
    ) -> None:
        self.planner = planner
        self.retriever = retriever
        self.validator = validator
        self.llm = llm
        graph = StateGraph(AgentState)
        graph.add_node("plan", self._plan)
        graph.add_node("execute", self._execute)
        graph.add_node("synthesize", self._synthesize)
        graph.add_node("ground", self._ground)
        graph.add_edge(START, "plan")
        graph.add_edge("plan", "execute")
        graph.add_edge("execute", "synthesize")
        graph.add_edge("synthesize", "ground")
        graph.add_edge("ground", END)
        self.graph = graph.compile(checkpointer=checkpointer)

    def _plan(self, state: AgentState) -> dict[str, Any]:
        started = time.perf_counter()
        plan = self.planner(state["question"])
        return {
            "plan": plan,
            "history": [state["question"]],
            "timings": {"plan_ms": _ms(started)},
        }

    def _execute(self, state: AgentState) -> dict[str, Any]:
        started = time.perf_counter()
        answer = self.retriever.query(
            state["plan"].query,
            level=state.get("level", "fast"),
            recall_target=state.get("recall_target"),
        )
        page = answer.page(state.get("max_results", 50))
        candidate = state["plan"].candidate
        found = None if candidate is None else candidate.id in answer.gate.ids
        return {"answer": page, "candidate_found": found, "timings": {"execute_ms": _ms(started)}}

    def _synthesize(self, state: AgentState) -> dict[str, Any]:
        started = time.perf_counter()
        plan, answer = state["plan"], state["answer"]
        max_results = state.get("max_results", 50)
        notes: list[str] = []
        summary, rationales, how = None, None, "template"
        shown = answer.answers
        if self.llm is not None and shown:
            try:
                written = llm_synthesis(
                    self.llm,
                    plan,
                    shown,
                    self.retriever.store,
                    self.validator.extractor,
                    max_results=max_results,
                )
                summary = written.summary
                rationales = {a.id: a.rationale for a in written.answers}
                how = "llm"
            except LLMError as error:
                notes.append(f"LLM synthesis not used ({error}); template report")
        report = template_report(
            plan,
            shown,
            answer.completeness,
            self.retriever.store,
            max_results=max_results,
            total=answer.total,
            summary=summary,
            rationales=rationales,
            candidate_found=state.get("candidate_found"),
        )
        prose = [summary or "", *(rationales or {}).values()]
        return {
            "report": report,
            "synthesis": how,
            "prose": [text for text in prose if text.strip()],
            "notes": notes,
            "timings": {"synthesize_ms": _ms(started)},
        }

    def _ground(self, state: AgentState) -> dict[str, Any]:
        if not state.get("ground", True):
            return {"grounding": None, "timings": {"ground_ms": 0.0}}
        started = time.perf_counter()
        report, answer = state["report"], state["answer"]
        claims = evidence_claims(
            report,
            answer.answers,
            self.retriever.store,
            max_results=state.get("max_results", 50),
        )
        notes: list[str] = []
        position = 0
        for passage in state.get("prose", []):
            offset = report.find(passage, position)
            if offset < 0:
                continue
            position = offset + len(passage)
            checked = self.validator.validate(passage)
            claims.extend(_shifted(checked, offset).claims)
            notes.extend(checked.notes)
        if not claims:
            return {"grounding": None, "timings": {"ground_ms": _ms(started)}}  # no answers
        claims.sort(key=lambda claim: claim.start)
        grounding = GroundingResult.of(claims, notes=notes)
        return {"grounding": grounding, "timings": {"ground_ms": _ms(started)}}

    def run(
        self,
        inputs: AgentState,
        *,
        thread_id: str | None = None,
        on_node: Callable[[str], None] | None = None,
    ) -> AgentState:
        """Run the four nodes (``on_node`` hears each one's name as it finishes); the final
        state."""
        final: AgentState = inputs
        for mode, chunk in self.graph.stream(
            inputs, _config(thread_id), stream_mode=["updates", "values"]
        ):
            if mode == "values":
                final = cast(AgentState, chunk)
            elif on_node is not None:
                for name in chunk:
                    on_node(name)
        return final


def _shifted(result: GroundingResult, offset: int) -> GroundingResult:
    """Spans measured in the findings section, moved to where they are in the whole report."""
    claims = [
        claim.model_copy(
            update={
                "start": claim.start + offset,
                "end": claim.end + offset,
                "entities": [
                    e.model_copy(update={"start": e.start + offset, "end": e.end + offset})
                    for e in claim.entities
                ],
            }
        )
        for claim in result.claims
    ]
    return result.model_copy(update={"claims": claims})


def _config(thread_id: str | None) -> Any:
    return {"configurable": {"thread_id": thread_id}} if thread_id else None


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
