"""The two-phase agent (LangGraph) and the ``QueryService`` façade.

Filled by the agent issue; may use every floor below it, never :mod:`kgrecall.service`.
"""

__all__: list[str] = []
