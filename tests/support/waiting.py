"""Waiting in a test for something to happen: on its condition, never for a fixed time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def until(predicate: Callable[[], object], *, timeout: float = 5.0, what: str = "the condition") -> None:
    """Return as soon as ``predicate()`` is true (checked at once, then every few milliseconds while the
    loop runs the rest); fail after ``timeout`` seconds. A check that *nothing* happens within some time
    cannot wait on a condition: such a test sleeps, and says so."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.002)
