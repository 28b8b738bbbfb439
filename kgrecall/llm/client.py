"""LLM settings, the chat model they build, and one validated structured call.

``structured_call`` asks for a pydantic schema as a forced tool call when the model supports
tools (OpenAI-compatible servers do) and as a JSON object in the message content otherwise,
validates the answer with pydantic, and turns every failure — transport, timeout, refusal,
malformed JSON, a schema violation — into one :class:`LLMError` that says what went wrong, so
callers can fall back to their offline path.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, Field, SecretStr, ValidationError

from kgrecall.errors import UpstreamError
from kgrecall.settings import DEFAULT_LLM_MODEL, settings

if TYPE_CHECKING:  # langchain loads only when a model is actually called
    from langchain_core.language_models import BaseChatModel

DEFAULT_MODEL = DEFAULT_LLM_MODEL
Schema = TypeVar("Schema", bound=BaseModel)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class LLMError(UpstreamError):
    """The LLM call failed or its answer did not validate; the message says which."""


class LLMSettings(BaseModel):
    """Where the OpenAI-compatible endpoint is and how long to wait for it."""

    api_key: SecretStr
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    timeout_s: float = Field(default=30.0, gt=0)

    @classmethod
    def from_env(cls) -> LLMSettings | None:
        """Settings from ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` / ``KGRECALL_LLM_MODEL`` /
        ``KGRECALL_LLM_TIMEOUT``; None (no LLM) when no API key is set."""
        environment = settings()
        if environment.openai_api_key is None:
            return None
        return cls(
            api_key=environment.openai_api_key,
            model=environment.kgrecall_llm_model,
            base_url=environment.openai_base_url,
            timeout_s=environment.kgrecall_llm_timeout,
        )


def chat_model(settings: LLMSettings) -> BaseChatModel:
    """A ``ChatOpenAI`` for the settings: temperature 0, no retries (callers fall back)."""
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        timeout=settings.timeout_s,
        max_retries=0,
        temperature=0,
    )


def structured_call(model: BaseChatModel, schema: type[Schema], system: str, user: str) -> Schema:
    """One call that must answer with ``schema``; any failure is an :class:`LLMError`."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    messages = [SystemMessage(system), HumanMessage(user)]
    try:
        bound = model.bind_tools([schema], tool_choice=schema.__name__)
    except NotImplementedError:  # a model without tool calling: ask for JSON content
        bound = None
        messages[0] = SystemMessage(
            f"{system}\n\nAnswer with one JSON object matching this JSON schema, nothing else:\n"
            + json.dumps(schema.model_json_schema())
        )
    try:
        reply = (bound or model).invoke(messages)
    except Exception as error:  # transport, timeout, HTTP status: all mean "fall back"
        raise LLMError(f"the LLM call failed: {type(error).__name__}: {error}") from error
    if not isinstance(reply, AIMessage):
        raise LLMError(f"the LLM answered with a {type(reply).__name__}, not a chat message")
    calls = [call for call in reply.tool_calls if call["name"] == schema.__name__]
    try:
        if calls:
            return schema.model_validate(calls[0]["args"])
        content = reply.content if isinstance(reply.content, str) else ""
        fenced = _FENCE.match(content)
        return schema.model_validate_json(fenced.group(1) if fenced else content)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
            for e in error.errors()[:3]
        )
        raise LLMError(f"the LLM answer is not a valid {schema.__name__}: {problems}") from error
