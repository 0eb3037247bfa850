"""``python -m engine.replay HAND.json``: replay a hand file, print the result JSON.

Anything illegal or malformed prints ``{"error": ..., "action_index": N}`` and
exits with status 2; nothing else is ever printed to stdout.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence

from engine.errors import EngineError
from engine.handfile import HandFile, ReplayError, replay_hand, result_of


def error_json(message: str, *, action_index: int | None = None) -> str:
    """The JSON line of status 2: ``{"error": ..., "action_index": N}``."""
    return json.dumps({"error": message, "action_index": action_index})


def run_on_file(argv: Sequence[str], *, usage: str, handle: Callable[[bytes], tuple[int, str]]) -> tuple[int, str]:
    """Read the one file named in ``argv`` (``-`` for stdin) and return ``handle(its bytes)``;
    a wrong argument count or an unreadable file is status 2 with the JSON error."""
    if len(argv) != 1:
        return 2, error_json(usage)
    path = argv[0]
    try:
        if path == "-":
            text = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                text = f.read()
    except OSError as exc:
        return 2, error_json(f"cannot read {path!r}: {exc.strerror or exc}")
    return handle(text)


def status_or_error(work: Callable[[], tuple[int, str]]) -> tuple[int, str]:
    """``work()``, or status 2 and the JSON error for a malformed hand file."""
    try:
        return work()
    except ReplayError as exc:
        return 2, error_json(str(exc), action_index=exc.action_index)
    except EngineError as exc:  # every other engine error is a bad hand file here too
        return 2, error_json(str(exc))
    except RecursionError:
        return 2, error_json("the hand file is nested too deeply")


def replay_text(text: str | bytes) -> tuple[int, str]:
    """Return (exit status, stdout text) for a hand file's JSON text."""
    return status_or_error(lambda: (0, json.dumps(result_of(replay_hand(HandFile.from_json(text))), indent=2)))


def run(argv: Sequence[str]) -> tuple[int, str]:
    """Return (exit status, stdout text) for the given arguments."""
    return run_on_file(argv, usage="usage: python -m engine.replay HAND.json (or - for stdin)", handle=replay_text)


def main() -> None:
    status, out = run(sys.argv[1:])
    print(out)
    sys.exit(status)


if __name__ == "__main__":
    main()
