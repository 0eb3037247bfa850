"""Every committed event reaches the table, even across a ``kill -9``.

An action is committed before it is played and shown, but what it says to the table
("carol calls 2") waits in the outbox a moment (to stay within the platform's limits):
a crash in that moment would lose the line while the pot keeps the chips. So each hand
keeps (``hands.announced``) how many of its events are known to have reached the
table: 0 when it starts; :class:`Deliveries` moves it on once the messenger confirms
the lines are out (:class:`~bot.core.ports.Confirming`; a messenger without holding sends
before ``announce`` returns), and clears it (NULL) once the hand's last lines are out.
On start, the lines of the events after that count are announced again (at least once:
a crash between sending and marking repeats a line, never loses one).

The database also keeps the platform requests in flight (``pending_answers``): a Discord
interaction whose answer a crash cut off is answered after the restart while its token
lives (see ``adapters/discord/adapter.py``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from bot.core.model import HandSetup
from bot.core.ports import Confirming, Messenger, TableAddress, confirming
from bot.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Unannounced:
    """A finished hand whose last lines may not have reached the table."""

    hand_id: int
    setup: HandSetup
    actions: tuple[str, ...]
    events: int
    """Events already announced."""


async def announced_events(store: Store, hand_id: int) -> int | None:
    """How many of the hand's events reached the table; None: all of them (or the hand predates this)."""
    rows = await store.fetch("SELECT announced FROM hands WHERE id = ?", (hand_id,))
    return None if not rows or rows[0]["announced"] is None else int(rows[0]["announced"])


async def unannounced_finished(store: Store, table_id: int) -> list[Unannounced]:
    """Finished hands of the table whose last lines are not known to be out."""
    rows = await store.fetch("SELECT id, setup, announced FROM hands WHERE table_id = ? AND status = 'done' "
                             "AND announced IS NOT NULL ORDER BY id", (table_id,))
    out = []
    for row in rows:
        actions = await store.fetch("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq", (row["id"],))
        out.append(Unannounced(hand_id=row["id"], setup=HandSetup.from_json(json.loads(row["setup"])),
                               actions=tuple(r["action"] for r in actions), events=int(row["announced"])))
    return out


class Deliveries:
    """Marks each hand's lines as announced once the messenger has them out.

    Marks are written together, at most every ``every`` seconds, off the tables' path: an
    action costs no statement of its own. A crash in that window only repeats lines that
    were out already (at least once, never lost); :meth:`close` writes what is confirmed.

    A table has at most one confirmation in flight: what is tracked meanwhile waits for it,
    then is confirmed together by the next one (which covers every line announced before it
    began), so a busy table costs one wait per flush of its outbox, not one per action.
    """

    def __init__(self, *, store: Store, messenger: Messenger, every: float = 0.005) -> None:
        self.store = store
        self.messenger = messenger
        self.every = every
        self._waiting: set[asyncio.Task[None]] = set()
        self._confirming: dict[str, asyncio.Task[None]] = {}
        """Table key -> its confirmation in flight."""
        self._next: dict[str, dict[int, tuple[int, bool]]] = {}
        """Table key -> hand id -> (events, final): tracked, for the table's next confirmation."""
        self._marks: dict[int, tuple[int, bool]] = {}
        """hand id -> (events out, all of them): confirmed, not yet written."""
        self._writer: asyncio.Task[None] | None = None
        self._writing = False

    def track(self, *, table: TableAddress, hand_id: int, events: int, final: bool) -> None:
        """The lines of the hand's first ``events`` events are announced: mark them once they are out
        (``final``: the hand's last lines; its row goes)."""
        messenger = self.messenger
        if not confirming(messenger):  # sent before announce returned
            self._confirmed(hand_id, events, final)
            return
        key = table.key  # made anew at each use: once a call (this runs at every action)
        batch = self._next.get(key)
        if batch is None:
            self._next[key] = {hand_id: (events, final)}
        else:
            _merge(batch, hand_id, events, final)
        if key not in self._confirming:
            task = asyncio.get_running_loop().create_task(self._confirm(messenger, table, key))
            self._confirming[key] = task
            self._waiting.add(task)
            task.add_done_callback(self._waiting.discard)

    async def _confirm(self, messenger: Confirming, table: TableAddress, key: str) -> None:
        """Confirm the table's tracked lines, a batch at a time, until none is left."""
        try:
            while (batch := self._next.pop(key, None)) is not None:
                try:
                    ok = await messenger.delivered(table=table)
                except Exception:  # not confirmed: said again after a restart
                    log.exception("confirming the lines of hands %s failed", sorted(batch))
                    continue
                if ok:
                    for hand_id, (events, final) in batch.items():
                        self._confirmed(hand_id, events, final)
        finally:
            self._confirming.pop(key, None)

    def _confirmed(self, hand_id: int, events: int, final: bool) -> None:
        _merge(self._marks, hand_id, events, final)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_later())

    async def _write_later(self) -> None:
        await asyncio.sleep(self.every)
        await self._write()

    async def _write(self) -> None:
        marks, self._marks = self._marks, {}
        if not marks:
            return
        self._writing = True
        try:
            done = [(hand_id,) for hand_id, (_, final) in marks.items() if final]
            going = [(events, events, hand_id) for hand_id, (events, final) in marks.items() if not final]
            async with self.store.atomic() as tx:  # two statements for any number of hands
                if done:
                    await tx.executemany("UPDATE hands SET announced = NULL WHERE id = ?", done)
                if going:
                    await tx.executemany("UPDATE hands SET announced = CASE WHEN announced < ? THEN ? "
                                         "ELSE announced END WHERE id = ?", going)
        except Exception:  # the worst outcome is a line said twice after a restart
            log.exception("marking the lines of %d hands as delivered failed", len(marks))
        finally:
            self._writing = False

    async def close(self, timeout: float = 5.0) -> None:
        """Take the confirmations of lines already out (the outboxes are drained first), write them, stop."""
        if self._waiting:
            _, pending = await asyncio.wait(set(self._waiting), timeout=timeout)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._writer is not None and not self._writer.done():
            if not self._writing:
                self._writer.cancel()  # still waiting: its marks are written just below
            await asyncio.gather(self._writer, return_exceptions=True)
        await self._write()

    def abandon(self) -> None:
        """Stop without writing anything more (what a SIGKILL does; for tests)."""
        for task in [*self._waiting, *([self._writer] if self._writer is not None else [])]:
            task.cancel()


def _merge(marks: dict[int, tuple[int, bool]], hand_id: int, events: int, final: bool) -> None:
    known, done = marks.get(hand_id, (0, False))
    marks[hand_id] = (max(known, events), done or final)
