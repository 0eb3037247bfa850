"""Named points where a crash test kills the process (SIGKILL), exactly there; no-ops otherwise.

A test starts a process with ``STUDBOT_KILL_AT`` naming one point (``webhook.applied``, say) and
``STUDBOT_KILL_ARMED`` naming a file: the first time the process passes that point while the file
exists, it deletes the file and kills itself with SIGKILL (nothing flushed, nothing released,
as ``kill -9`` leaves it). Without ``STUDBOT_KILL_AT`` (production) :func:`reached` only compares
two strings.

The points:

- ``webhook.claimed``: a webhook worker claimed an update, before it applies it;
- ``webhook.applied``: it applied the update, before it marks it done;
- ``inbox.applied``: a table's holder ran a forwarded command, before it writes the answer;
- ``board.posted``: the outbox showed a board under a new reference (a new message), before the
  core stores it.
"""

from __future__ import annotations

import os
import signal
from typing import Final

_POINT: Final = os.environ.get("STUDBOT_KILL_AT") or None
_ARMED: Final = os.environ.get("STUDBOT_KILL_ARMED") or None


def reached(point: str) -> None:
    """The process passes ``point``: killed here if a test armed it."""
    if _POINT is None or point != _POINT or _ARMED is None:
        return
    try:
        os.remove(_ARMED)
    except FileNotFoundError:  # not armed (or fired already)
        return
    os.kill(os.getpid(), signal.SIGKILL)
