"""Environment settings: one module reads them, by their documented names, at call time; a
value that does not parse names its variable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kgrecall.errors import InvalidRequestError
from kgrecall.kg.workspace import default_home
from kgrecall.settings import Settings, settings

PACKAGE = Path(__file__).resolve().parent.parent / "kgrecall"
VARIABLES = [name.upper() for name in Settings.model_fields]


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_defaults_without_any_variable(clean: pytest.MonkeyPatch) -> None:
    current = settings()
    assert current.kgrecall_home is None and default_home() == Path.home() / ".cache/kgrecall"
    assert current.openai_api_key is None and current.kgrecall_llm_timeout == 30.0
    assert current.kgrecall_admin_auth == "enabled" and current.neo4j_user == "neo4j"


def test_variables_are_read_when_asked(clean: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean.setenv("KGRECALL_HOME", str(tmp_path))
    clean.setenv("KGRECALL_QUERY_LOG", "Hashed")
    clean.setenv("KGRECALL_ADMIN_KEY", "s3cret")
    clean.setenv("OPENAI_BASE_URL", "")  # set but empty: unset
    current = settings()
    assert default_home() == tmp_path and current.kgrecall_query_log == "hashed"
    assert current.kgrecall_admin_key is not None
    assert "s3cret" not in repr(current)  # secrets are never printed
    assert current.openai_base_url is None


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("KGRECALL_LLM_TIMEOUT", "soon", "KGRECALL_LLM_TIMEOUT: .*number"),
        ("KGRECALL_LLM_TIMEOUT", "-1", "KGRECALL_LLM_TIMEOUT: .*greater than 0"),
        ("KGRECALL_QUERY_LOG", "loud", "KGRECALL_QUERY_LOG: .*'off', 'full' or 'hashed'"),
        ("KGRECALL_ADMIN_AUTH", "maybe", "KGRECALL_ADMIN_AUTH: .*'enabled' or 'disabled'"),
    ],
)
def test_a_bad_value_names_its_variable(
    clean: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    clean.setenv(variable, value)
    with pytest.raises(InvalidRequestError, match=message):
        settings()


def test_only_the_settings_module_reads_the_environment() -> None:
    readers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")) or (
                isinstance(node, ast.Name) and node.id == "getenv"
            ):
                readers.append(str(path.relative_to(PACKAGE)))
    assert readers == []  # pydantic-settings reads it for kgrecall/settings.py
