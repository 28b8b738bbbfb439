"""Every environment setting of kgrecall, in one place, by its documented name.

:func:`settings` reads the environment when called (not at import), so a process that changes
a variable — a test, a notebook — sees the change on the next call. A value that does not
parse is an :class:`~kgrecall.errors.InvalidRequestError` naming the variable and what it
accepts.

| variable | meaning |
| --- | --- |
| ``KGRECALL_HOME`` | the workspace (default ``~/.cache/kgrecall``) |
| ``KGRECALL_CALIBRATION_STORE`` | a calibration store path or ``redis://`` URL |
| ``KGRECALL_QUERY_LOG`` | ``off`` / ``full`` / ``hashed``: the monitor's query log |
| ``KGRECALL_ADMIN_KEY`` | the ``X-API-Key`` of the HTTP platform routes |
| ``KGRECALL_ADMIN_AUTH`` | ``disabled`` to serve platform routes without a key (local use) |
| ``OPENAI_API_KEY`` | turns the LLM on |
| ``OPENAI_BASE_URL`` | any OpenAI-compatible server |
| ``KGRECALL_LLM_MODEL`` | the chat model (default ``gpt-4o-mini``) |
| ``KGRECALL_LLM_TIMEOUT`` | seconds per LLM call (default 30) |
| ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD`` | a Neo4j server |
| ``NEO4J_DATABASE`` | its database (default: the server's default database) |
| ``KGRECALL_STORE`` | ``embedded`` (the workspace's KG files, default) or ``neo4j``: serve the KG |
|  | held in that Neo4j database (``kgrecall kg push-neo4j`` puts one there) |
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kgrecall.errors import InvalidRequestError

__all__ = ["DEFAULT_LLM_MODEL", "Settings", "StoreKind", "settings"]

DEFAULT_LLM_MODEL = "gpt-4o-mini"
#: Where a service's KGs live: the workspace's files, or a Neo4j database.
StoreKind = Literal["embedded", "neo4j"]


class Settings(BaseSettings):
    """The environment settings (field names are the variables, case-insensitive)."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    kgrecall_home: Path | None = None
    kgrecall_calibration_store: str | None = None
    kgrecall_query_log: Literal["off", "full", "hashed"] | None = None
    kgrecall_admin_key: SecretStr | None = None
    kgrecall_admin_auth: Literal["enabled", "disabled"] = "enabled"
    openai_api_key: SecretStr | None = None
    openai_base_url: str | None = None
    kgrecall_llm_model: str = DEFAULT_LLM_MODEL
    kgrecall_llm_timeout: float = Field(default=30.0, gt=0)
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str | None = None
    kgrecall_store: StoreKind = "embedded"

    @field_validator(
        "kgrecall_home",
        "kgrecall_calibration_store",
        "kgrecall_query_log",
        "kgrecall_admin_key",
        "openai_api_key",
        "openai_base_url",
        "neo4j_uri",
        "neo4j_database",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """``VAR=`` (set but empty) means the same as not set."""
        return None if value == "" else value

    @field_validator("kgrecall_query_log", "kgrecall_admin_auth", "kgrecall_store", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value


def settings() -> Settings:
    """The settings as the environment holds them now."""
    try:
        return Settings()
    except ValidationError as error:
        first = error.errors(include_input=False)[0]
        variable = str(first["loc"][0]).upper() if first["loc"] else "environment"
        raise InvalidRequestError(f"{variable}: {first['msg']}") from None
