"""The service layer: the HTTP API (FastAPI), asynchronous calibration jobs and the MCP
server, all over one :class:`~kgrecall.agents.QueryService`. The top floor: nothing else of
kgrecall imports it (the CLI starts it).
"""

from kgrecall.service.app import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_TIMEOUT_S,
    CalibrationRunRequest,
    GroundRequest,
    JobView,
    QueryRequest,
    StructuredQueryRequest,
    create_app,
)
from kgrecall.service.jobs import CalibrationJobs, CalibrationRequest, Job
from kgrecall.service.mcp_server import create_mcp_server

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_TIMEOUT_S",
    "CalibrationJobs",
    "CalibrationRequest",
    "CalibrationRunRequest",
    "GroundRequest",
    "Job",
    "JobView",
    "QueryRequest",
    "StructuredQueryRequest",
    "create_app",
    "create_mcp_server",
]
