"""``python -m engine.replay HAND.json``: replay a hand file, print the result JSON.

Anything illegal or malformed prints ``{"error": ..., "action_index": N}`` and
exits with status 2; nothing else is ever printed to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from .errors import EngineError
from .handfile import HandFile, ReplayError, replay_hand, result_of


def run(argv: Sequence[str]) -> tuple[int, str]:
    """Return (exit status, stdout text) for the given arguments."""
    if len(argv) != 1:
        usage = "usage: python -m engine.replay HAND.json (or - for stdin)"
        return 2, json.dumps({"error": usage, "action_index": None})
    path = argv[0]
    try:
        if path == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                text = f.read()
    except OSError as exc:
        return 2, json.dumps({"error": f"cannot read {path!r}: {exc.strerror or exc}", "action_index": None})
    try:
        hand = replay_hand(HandFile.from_json(text))
    except ReplayError as exc:
        return 2, json.dumps({"error": str(exc), "action_index": exc.action_index})
    except EngineError as exc:  # defensive: every engine error is a bad hand file here
        return 2, json.dumps({"error": str(exc), "action_index": None})
    except RecursionError:
        return 2, json.dumps({"error": "the hand file is nested too deeply", "action_index": None})
    return 0, json.dumps(result_of(hand), indent=2)


def main() -> None:
    status, out = run(sys.argv[1:])
    print(out)
    sys.exit(status)


if __name__ == "__main__":
    main()
