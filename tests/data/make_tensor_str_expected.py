"""Regenerate tensor_str_expected.json from torch's own repr of the test corpus.

Run from anywhere:  python tests/data/make_tensor_str_expected.py
Needs torch; the test suite uses the JSON when torch is not importable.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, to import the corpus

import test_tensor_str as t  # noqa: E402


def main() -> None:
    if t.torch is None:
        raise SystemExit("torch is required to regenerate the expected strings")
    expected = {case.name: t.torch_repr(case) for case in t.CASES}
    with open(os.path.join(HERE, "tensor_str_expected.json"), "w") as fh:
        json.dump(expected, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"wrote {len(expected)} cases (torch {t.torch.__version__})")


if __name__ == "__main__":
    main()
