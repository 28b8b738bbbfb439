"""The names callers choose among — completeness levels, calibration methods, Mondrian
conditioning — as ``Literal`` types, in a module that imports nothing, so that the command
line and the HTTP schema can offer them as choices without loading the calibration code."""

from typing import Literal

__all__ = ["METHODS", "Conditioning", "Level", "Method"]

#: Completeness levels (DESIGN §5): fast = retrieval only; thorough and exhaustive calibrated.
Level = Literal["fast", "thorough", "exhaustive"]
#: Calibration methods: conformal risk control, learn-then-test, answer-set coverage.
Method = Literal["crc", "ltt", "coverage"]
METHODS: tuple[Method, ...] = ("crc", "ltt", "coverage")
#: Mondrian groups a calibration is made per: none, the relations asked about, anchor degree.
Conditioning = Literal["none", "relation", "degree"]
