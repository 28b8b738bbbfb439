"""The LLM layer: settings from the environment, structured calls over the real client."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import BaseModel, SecretStr

from kgrecall.errors import InvalidRequestError
from kgrecall.llm import LLMError, LLMSettings, chat_model, structured_call
from tests.llm_server import OpenAIStub, Reply


class Answer(BaseModel):
    genes: list[str]
    count: int


def settings(stub: OpenAIStub, timeout_s: float = 5.0) -> LLMSettings:
    return LLMSettings(
        api_key=SecretStr("test-key"),
        base_url=stub.base_url,
        model="stub-model",
        timeout_s=timeout_s,
    )


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert LLMSettings.from_env() is None  # no key: no LLM, everything runs offline
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KGRECALL_LLM_MODEL", "local-model")
    configured = LLMSettings.from_env()
    assert configured is not None and configured.model == "local-model"
    assert configured.base_url == "http://127.0.0.1:9/v1"
    assert "sk-x" not in repr(configured)  # the key is a secret, never printed
    monkeypatch.setenv("KGRECALL_LLM_TIMEOUT", "soon")
    with pytest.raises(InvalidRequestError, match=r"KGRECALL_LLM_TIMEOUT: .*number"):
        LLMSettings.from_env()


def test_tool_call_answer_over_http(openai_stub: OpenAIStub) -> None:
    openai_stub.script(Reply(tool="Answer", arguments={"genes": ["SNCA"], "count": 1}))
    answer = structured_call(chat_model(settings(openai_stub)), Answer, "system", "question")
    assert answer == Answer(genes=["SNCA"], count=1)
    (request,) = openai_stub.requests
    assert request["model"] == "stub-model" and request["temperature"] == 0
    assert request["tools"][0]["function"]["name"] == "Answer"
    assert request["tool_choice"]["function"]["name"] == "Answer"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(tool="Answer", arguments={"genes": "SNCA"}), "not a valid Answer: genes"),
        (Reply(tool="Answer", arguments="{not json"), "not a valid Answer"),
        (Reply(content="I cannot help with that."), "not a valid Answer"),
        (Reply(status=500), "the LLM call failed: .*500"),
        (Reply(delay_s=3, content="{}"), "the LLM call failed: .*timed out"),
    ],
)
def test_failures_are_one_clear_error(openai_stub: OpenAIStub, reply: Reply, message: str) -> None:
    openai_stub.script(reply)
    with pytest.raises(LLMError, match=message):
        structured_call(chat_model(settings(openai_stub, timeout_s=1)), Answer, "s", "q")


def test_models_without_tools_answer_json_content() -> None:
    fenced = FakeListChatModel(responses=['```json\n{"genes": ["LRRK2"], "count": 1}\n```'])
    assert structured_call(fenced, Answer, "s", "q").genes == ["LRRK2"]
    with pytest.raises(LLMError, match="count: Field required"):
        structured_call(FakeListChatModel(responses=['{"genes": []}']), Answer, "s", "q")
