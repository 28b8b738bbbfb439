"""The two-phase agent (LangGraph) and the ``QueryService`` façade.

Plan (offline patterns + entity linking, or an OpenAI-compatible LLM with fallback) →
execute through the conformal gates → synthesize a report → ground it against the KG. May use
every floor below it, never :mod:`kgrecall.service`.
"""

from typing import TYPE_CHECKING

from kgrecall._lazy import attach

if TYPE_CHECKING:
    from kgrecall.agents.agent import NODES, AgentState, TwoPhaseAgent
    from kgrecall.agents.planner import (
        AnchorLink,
        LLMPlanner,
        OfflinePlanner,
        PlanningError,
        QueryPlan,
        RelationLink,
    )
    from kgrecall.agents.service import (
        MAX_RESULTS_CAP,
        Answer,
        AskResponse,
        KGResources,
        QueryResponse,
        QueryService,
    )
    from kgrecall.agents.synthesis import Synthesis, template_report
    from kgrecall.agents.tools import make_agent_tools

__all__ = [
    "MAX_RESULTS_CAP",
    "NODES",
    "AgentState",
    "AnchorLink",
    "Answer",
    "AskResponse",
    "KGResources",
    "LLMPlanner",
    "OfflinePlanner",
    "PlanningError",
    "QueryPlan",
    "QueryResponse",
    "QueryService",
    "RelationLink",
    "Synthesis",
    "TwoPhaseAgent",
    "make_agent_tools",
    "template_report",
]

__getattr__, __dir__ = attach(
    __name__,
    globals(),
    {
        "NODES": "kgrecall.agents.agent",
        "AgentState": "kgrecall.agents.agent",
        "TwoPhaseAgent": "kgrecall.agents.agent",
        "AnchorLink": "kgrecall.agents.planner",
        "LLMPlanner": "kgrecall.agents.planner",
        "OfflinePlanner": "kgrecall.agents.planner",
        "PlanningError": "kgrecall.agents.planner",
        "QueryPlan": "kgrecall.agents.planner",
        "RelationLink": "kgrecall.agents.planner",
        "MAX_RESULTS_CAP": "kgrecall.agents.service",
        "Answer": "kgrecall.agents.service",
        "AskResponse": "kgrecall.agents.service",
        "KGResources": "kgrecall.agents.service",
        "QueryResponse": "kgrecall.agents.service",
        "QueryService": "kgrecall.agents.service",
        "Synthesis": "kgrecall.agents.synthesis",
        "template_report": "kgrecall.agents.synthesis",
        "make_agent_tools": "kgrecall.agents.tools",
    },
)
