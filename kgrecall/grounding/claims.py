"""Heuristic claim extraction: markdown-aware sentence segmentation with character spans.

A report is split into units — paragraphs, bullet items, table rows (header and separator
rows skipped), lines that open on a field's label ("**Admitted:** 03/02/2025", "Diagnosis: …",
one field per line as a letter's header block writes them), short lines of an address or
signature block ("Harbour Lane Surgery"), never headings or code blocks —
and each unit into sentences. A sentence ends at
``.``, ``!`` or ``?`` followed by whitespace and an upper-case or Greek letter, digit, quote,
bracket or emphasis mark, unless the word before the full stop is a known abbreviation ("e.g.",
"et al.", "Fig.", …) or an initial ("J. Smith"; not before a symbol: "HSAN V. GDNF"). Emphasis
marks around a whole sentence are not part of it. Dots inside tokens ("Nkx2.1", "p.R1441G",
"3.5") never split. Every claim keeps its character span in the report, so annotations can
point back at the text.

Bad input gets a clear error: an empty report, binary data (NUL bytes or mostly unprintable
characters) and reports longer than ``max_chars`` are refused before any work.

Segmentation is linear in the report's length, whatever it holds: no pattern backtracks over
an unbounded run (a sentence end starts only at the first of a run of ``.!?`` and its
quantifiers are possessive; table separators are checked cell by cell without a regex over
the row), and long loops check the caller's deadline (:mod:`kgrecall.kg.deadline`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgrecall.kg import KGError
from kgrecall.kg.deadline import check_deadline

#: Reports longer than this (characters) are refused: bounded work, never a hang.
DEFAULT_MAX_CHARS = 2_000_000
#: Words that end with a full stop without ending a sentence (compared case-insensitively).
ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "et",
        "al",
        "fig",
        "figs",
        "eq",
        "vs",
        "cf",
        "approx",
        "ca",
        "resp",
        "ref",
        "refs",
        "no",
        "nos",
        "dr",
        "prof",
        "mr",
        "mrs",
        "ms",
        "st",
        "incl",
        "esp",
        "viz",
        "sp",
        "spp",
        "var",
        "ed",
        "eds",
        "vol",
        "pp",
        "suppl",
    ]
)

_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+")
#: A line that opens on a field's label ("**Admitted:** 03/02/2025", "Diagnosis: …"), as the
#: header block of a letter or a summary writes one field per line: its own unit, though
#: markdown would join it to the lines around it.
_FIELD = re.compile(
    r"^\s*(?:(?:\*\*|__)[^*_\n]{1,40}?(?::(?:\*\*|__)|(?:\*\*|__):)|[A-Z][\w ()/-]{0,30}?:)\s"
)
#: The longest line of an address or signature block (see :func:`_block_line`).
_BLOCK_LINE_CHARS = 50
#: A line's end that goes on into the next line.
_RUNS_ON = re.compile(
    r"(?:[,;:(\[/&+=–—-]|\b(?:and|or|of|the|a|an|with|to|in|for|by|on|at|from|as|is|are|"
    r"was|were|that|which|than|not|nor|but)) *$",
    re.IGNORECASE,
)
#: A line that opens an item of its own: a capital, a digit or an emphasis mark first.
_OPENS_ITEM = re.compile(r"\s*(?:[*_]{1,2})?[A-Z0-9]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR_CELL = re.compile(r":?-{2,}:?")
_LAST_WORD = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][A-Za-z.]*)$")
_LABEL_WORD = re.compile(
    r"\b(type|group|complex|class|factor|vitamin|subunit|chain|form|stage|grade|phase|"
    r"protein|hepatitis|subtype)$",
    re.IGNORECASE,
)
#: Starts only at the first of a run of ``.!?`` (else each dot of "....." would rescan the
#: run: quadratic), and never gives back what it matched.
_SENTENCE_END = re.compile(
    r"(?<![.!?])[.!?]++[\"')\]]*+(?=\s++(?:[\"'(\[]|[*_]{1,2})?[A-Z0-9α-ωΑ-Ω])"
)
#: A symbol in capitals after an initial's full stop starts a new sentence ("HSAN V. GDNF").
_SYMBOL_NEXT = re.compile(r"\s+[A-Z][A-Z0-9]+\b")
#: Emphasis around a whole sentence ("*Further reading: …*") is not part of it.
_EMPHASIS = "*_"
_BOLD = re.compile(r"\*\*|__")


@dataclass(frozen=True, slots=True)
class ClaimPair:
    """A pair a claim asserts, as an LLM read it: the two names as the claim writes them,
    ``subject`` the relation's head; ``relation`` a relation of the registry, or None when the
    wording names no kind of link."""

    subject: str
    object: str
    relation: str | None = None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    """One atomic statement and where it sits in the report (``report[start:end]``).

    ``verbatim``: the text is the span itself (whitespace aside); an LLM's rewritten claim is
    not, and its span is the sentence it came from. ``pairs``: the pairs an LLM read in it
    (empty: the verifier reads them from the wording).
    """

    text: str
    start: int
    end: int
    verbatim: bool = True
    pairs: tuple[ClaimPair, ...] = ()


def check_report(report: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> None:
    """Refuse empty, binary or oversized reports with a message that says which."""
    if not report.strip():
        raise KGError("the report is empty")
    if len(report) > max_chars:
        raise KGError(
            f"the report has {len(report):,} characters, more than the limit of {max_chars:,}; "
            "split it or raise max_chars"
        )
    if "\x00" in report:
        raise KGError("the report contains NUL bytes: binary data, not text")
    sample = report[:100_000]
    unprintable = sum(1 for c in sample if not c.isprintable() and c not in "\n\r\t")
    if unprintable > 0.1 * len(sample):
        raise KGError(
            f"the report looks binary: {unprintable:,} of its first {len(sample):,} "
            "characters are unprintable"
        )


def extract_claims(report: str, *, max_chars: int = DEFAULT_MAX_CHARS) -> list[Claim]:
    """Sentences of the report's paragraphs, bullet items and table rows, with spans."""
    check_report(report, max_chars=max_chars)
    claims: list[Claim] = []
    for start, end in report_units(report):
        claims.extend(_sentences(report, start, end))
    return claims


def report_units(report: str) -> list[tuple[int, int]]:
    """Character ranges of paragraphs, bullet items and table cells' rows."""
    units: list[tuple[int, int]] = []
    paragraph: tuple[int, int] | None = None
    in_fence = False
    rows_in_table = 0  # table rows seen since the table started (separator excluded)
    offset = 0
    previous = ""  # the paragraph's last line so far
    for line in report.splitlines(keepends=True):
        check_deadline()
        line_start, stripped = offset, line.rstrip("\r\n")
        offset += len(line)
        text_end = line_start + len(stripped)
        if _FENCE.match(stripped):
            in_fence = not in_fence
            paragraph = _flush(units, paragraph)
            continue
        if in_fence or not stripped.strip() or _HEADING.match(stripped):
            paragraph = _flush(units, paragraph)
            rows_in_table = 0
            continue
        if stripped.lstrip().startswith("|"):
            paragraph = _flush(units, paragraph)
            if _is_table_separator(stripped):
                if rows_in_table == 1:
                    units.pop()  # the one row above the separator is the header
                rows_in_table = 0 if rows_in_table == 1 else rows_in_table
                continue
            rows_in_table += 1
            units.append((line_start, text_end))
            continue
        rows_in_table = 0
        bullet = _BULLET.match(stripped)
        if bullet:
            paragraph = _flush(units, paragraph)
            paragraph = (line_start + bullet.end(), text_end)
            continue
        if _FIELD.match(stripped) or (paragraph is not None and _block_line(previous, stripped)):
            paragraph = _flush(units, paragraph)
        paragraph = (line_start, text_end) if paragraph is None else (paragraph[0], text_end)
        previous = stripped
    _flush(units, paragraph)
    return units


def _block_line(line: str, following: str) -> bool:
    """Whether ``line`` is a line of an address or signature block, its own unit though
    markdown would join it to the next: short, not running on (no comma, joining word or
    hyphen at its end), and the next line opens a new item ("Dr A. Okafor" / "Harbour Lane
    Surgery"; "Dr B. Smith" / "Consultant Clinical Geneticist")."""
    text = line.strip()
    return (
        len(text) <= _BLOCK_LINE_CHARS
        and _RUNS_ON.search(text) is None
        and _OPENS_ITEM.match(following) is not None
    )


def _is_table_separator(line: str) -> bool:
    """A markdown table's separator row (``| --- | :-: |``): cells of dashes with optional
    colons. Checked cell by cell, in linear time, where a single regex over the row
    backtracks quadratically on long runs of spaces."""
    row = line.strip()
    row = row.removeprefix("|")
    row = row.removesuffix("|")
    return all(_SEPARATOR_CELL.fullmatch(cell.strip()) for cell in row.split("|"))


def _flush(
    units: list[tuple[int, int]], paragraph: tuple[int, int] | None
) -> tuple[int, int] | None:
    """Close the open paragraph (if any); the result, None, is the new open paragraph."""
    if paragraph is not None:
        units.append(paragraph)
    return None


def _sentences(report: str, start: int, end: int) -> list[Claim]:
    unit = report[start:end]
    is_row = unit.lstrip().startswith("|")
    pieces: list[tuple[int, int]] = []
    cursor = 0
    if not is_row:
        for match in _SENTENCE_END.finditer(unit):
            check_deadline()
            if _is_abbreviation(unit, match.start()):
                continue
            pieces.append((cursor, match.end()))
            cursor = match.end()
    pieces.append((cursor, len(unit)))
    claims = []
    for piece_start, piece_end in pieces:
        raw = unit[piece_start:piece_end]
        text = " ".join(raw.replace("|", " ").split()) if is_row else " ".join(raw.split())
        leading = len(raw) - len(raw.lstrip().lstrip(_EMPHASIS).lstrip())
        trailing = len(raw) - len(raw.rstrip().rstrip(_EMPHASIS).rstrip())
        # bold marks inside ("**Admitted:** 03/02/2025") are markup, not the claim's words
        text = _BOLD.sub("", text.strip(_EMPHASIS)).strip()
        if not any(c.isalnum() for c in text):
            continue
        claims.append(Claim(text, start + piece_start + leading, start + piece_end - trailing))
    return claims


def _is_abbreviation(unit: str, stop: int) -> bool:
    """Whether the full stop at ``stop`` ends an abbreviation or an initial, not a sentence."""
    if unit[stop] != ".":
        return False
    word = _LAST_WORD.search(unit, max(0, stop - 40), stop)  # a bounded look-back: linear time
    if word is None:
        return False
    token = word.group(1).rstrip(".").lower()
    if token in ABBREVIATIONS:
        return True
    last = token.rsplit(".", 1)[-1]
    if last in ABBREVIATIONS:  # "e.g" inside "(e.g."
        return True
    if len(word.group(1)) != 1 or not word.group(1).isupper():
        return False
    # An initial ("J. Smith"), unless the letter closes a name: "type B.", "deficient, B.",
    # "MSA-C."
    if word.start() > 0 and unit[word.start() - 1] in "-–/":
        return False
    if _SYMBOL_NEXT.match(unit, stop + 1):
        return False  # "… HSAN V. GDNF binds …": a symbol, not a name, follows
    before = unit[max(0, word.start() - 12) : word.start()].rstrip()
    return not before.endswith(",") and _LABEL_WORD.search(before) is None
