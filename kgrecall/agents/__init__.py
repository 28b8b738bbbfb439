"""The two-phase agent (LangGraph) and the ``QueryService`` façade.

Plan (offline patterns + entity linking, or an OpenAI-compatible LLM with fallback) →
execute through the conformal gates → synthesize a report → ground it against the KG. May use
every floor below it, never :mod:`kgrecall.service`.
"""

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
    calibration_predictor,
    calibration_store,
    load_predictor,
    model_path,
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
    "calibration_predictor",
    "calibration_store",
    "load_predictor",
    "make_agent_tools",
    "model_path",
    "template_report",
]
