"""Work in flight, counted, so that a stop can wait for it before the database closes.

>>> import asyncio
>>> async def demo() -> tuple[bool, bool]:
...     work = Work()
...     gate = asyncio.Event()
...     async def command() -> None:
...         with work.track():
...             await gate.wait()
...     task = asyncio.create_task(command())
...     await asyncio.sleep(0)
...     busy = not await work.idle(timeout=0.01)  # the command is still running
...     gate.set()
...     done = await work.idle(timeout=1)
...     await task
...     return busy, done
>>> asyncio.run(demo())
(True, True)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator


class Work:
    """A count of the commands and timer callbacks in progress."""

    def __init__(self) -> None:
        self._count = 0
        self._idle: asyncio.Event | None = None

    @property
    def count(self) -> int:
        return self._count

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Count the block as work in flight while it runs."""
        self._count += 1
        try:
            yield
        finally:
            self._count -= 1
            if self._count == 0 and self._idle is not None:
                self._idle.set()

    async def idle(self, *, timeout: float) -> bool:
        """Wait until no work is in flight (True), or ``timeout`` seconds (False)."""
        if self._count == 0:
            return True
        if self._idle is None or self._idle.is_set():
            self._idle = asyncio.Event()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return self._count == 0
        return True
