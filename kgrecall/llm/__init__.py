"""OpenAI-compatible LLMs: settings from the environment, a chat model, validated output.

Everything in kgrecall works without an LLM; with ``OPENAI_API_KEY`` (and optionally
``OPENAI_BASE_URL``, ``KGRECALL_LLM_MODEL``, ``KGRECALL_LLM_TIMEOUT``) set, claim extraction
(and the agent's planner and synthesis) ask the model and fall back to the offline path on any
failure. Depends on :mod:`kgrecall.kg` (errors) only.
"""

from kgrecall.llm.client import (
    DEFAULT_MODEL,
    LLMError,
    LLMSettings,
    chat_model,
    structured_call,
)

__all__ = ["DEFAULT_MODEL", "LLMError", "LLMSettings", "chat_model", "structured_call"]
