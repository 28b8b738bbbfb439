"""A tool-calling fake chat model for the LLM path (the demo workspace fixtures live in
tests/conftest.py)."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class ScriptedToolModel(BaseChatModel):
    """A fake chat model that supports tool calling and answers from a script, the way
    LangGraph's own tests fake tool-calling models."""

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedToolModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any
    ) -> ChatResult:
        self.seen.append(messages)
        if not self.script:
            raise RuntimeError("the script is exhausted")
        return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-model"


def tool_reply(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call-1"}])
