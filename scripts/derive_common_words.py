"""Derive kgrecall's list of common English words from the ``wordfreq`` package.

Entity names that are also everyday words ("falls", "fusion", "SET", "REST", "OR") need
context before the grounding NER links them. Which words are everyday words comes from
wordfreq's English frequencies (Zipf scale, data CC BY-SA 4.0, code Apache-2.0); wordfreq is
not a dependency of kgrecall: this script writes the words at or above ``MIN_ZIPF`` to
``kgrecall/data/common_english.txt.gz`` (sorted, gzip mtime 0: reproducible to the byte).

    pip install wordfreq==3.1.1 && python scripts/derive_common_words.py [OUTPUT_DIR]
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from wordfreq import top_n_list, zipf_frequency

#: Zipf 4 = once per 100,000 words ("fusion", "grid", "chip"; not "tremor", "ataxia").
MIN_ZIPF = 4.0
FILE_NAME = "common_english.txt.gz"


def common_words(min_zipf: float = MIN_ZIPF) -> list[str]:
    """Alphabetic English words at or above ``min_zipf``, sorted."""
    words = {
        word
        for word in top_n_list("en", 100_000)
        if word.isalpha() and word.isascii() and zipf_frequency(word, "en") >= min_zipf
    }
    return sorted(words)


def main(argv: list[str]) -> int:
    output_dir = Path(argv[1]) if len(argv) > 1 else Path(__file__).parents[1] / "kgrecall" / "data"
    words = common_words()
    path = output_dir / FILE_NAME
    with path.open("wb") as raw, gzip.GzipFile("", "wb", fileobj=raw, mtime=0) as handle:
        handle.write(("\n".join(words) + "\n").encode("utf-8"))
    print(f"wrote {len(words)} words (Zipf ≥ {MIN_ZIPF}) to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
