"""kgrecall's errors: one neutral root, a class per kind of failure, and the one table that
maps each kind to an HTTP status — the HTTP service and the MCP server both read it, so a
failure is classified where it is raised, never from the wording of its message.

Every error's message names what is wrong and where (the file and line, the field, the valid
choices). :meth:`KGRecallError.public_message` is what remote callers see: the same message,
except where it would reveal server-side details (paths, the list of KGs served).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "HTTP_STATUS",
    "CalibrationInfeasibleError",
    "DeadlineExceededError",
    "InvalidRequestError",
    "KGRecallError",
    "NotFoundError",
    "ServiceUnavailableError",
    "UnreadableQuestionError",
    "UpstreamError",
    "http_status",
]


class KGRecallError(Exception):
    """Root of every error kgrecall raises on purpose."""

    def public_message(self) -> str:
        """The message for remote callers (HTTP, MCP)."""
        return str(self)


class InvalidRequestError(KGRecallError, ValueError):
    """Input the caller can fix: a bad field, file, parameter or KG content."""


class NotFoundError(KGRecallError, LookupError):
    """A named thing — a KG, an entity, a job, a logged query — that does not exist."""


class UnreadableQuestionError(KGRecallError):
    """A question that could not be turned into a query; the message says why."""

    def public_message(self) -> str:
        return f"could not read the question: {self}"


class CalibrationInfeasibleError(KGRecallError):
    """The risk target cannot be certified with the calibration data at hand (too few
    queries, or no threshold whose risk bound is low enough)."""


class UpstreamError(KGRecallError):
    """A service kgrecall depends on (the LLM endpoint) failed or answered invalidly."""


class ServiceUnavailableError(KGRecallError):
    """A fault of the server's own storage or state, not of the request."""


class DeadlineExceededError(KGRecallError, TimeoutError):
    """The work ran past its caller's time limit and was stopped."""


#: The HTTP status of each kind of error (the most specific class listed wins).
HTTP_STATUS: Mapping[type[KGRecallError], int] = {
    InvalidRequestError: 400,
    NotFoundError: 404,
    UnreadableQuestionError: 422,
    CalibrationInfeasibleError: 422,
    UpstreamError: 502,
    ServiceUnavailableError: 503,
    DeadlineExceededError: 504,
}


def http_status(error: KGRecallError) -> int:
    """The status :data:`HTTP_STATUS` gives ``error``'s class or its nearest listed base;
    500 for an error kind the table does not list."""
    by_class: dict[type, int] = dict(HTTP_STATUS)
    return next((by_class[c] for c in type(error).__mro__ if c in by_class), 500)
