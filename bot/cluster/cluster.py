"""Several processes on one database: each table held by one process at a time.

Cluster mode is on when ``STUDBOT_INSTANCE`` names the process. A process holds the
tables it has a lease on (``table_leases``, bot/cluster/leases.py), renews them every third of
the lease, and only the holder keeps a table in memory, runs its commands and fires its
timers (turn timeouts, house bots, the next deal). The database is the arbiter:

- **Taking a table**: a command for a channel whose table nobody live holds (no lease, an
  expired one, or this process's own from before a restart) takes the lease in one
  conditional UPDATE (epoch + 1) and restores the table from the database, as a start does.
  Every process also sweeps for such tables every third of the lease: a dead process's
  tables are carried on within the lease (plus their own timer's deadline).
- **Forwarding**: a command for a table another live process holds goes to it through the
  ``inbox`` table; the holder takes the waiting rows in order, runs each through the same
  funnel and writes the Reply back, which :meth:`Cluster.route` returns (adapters see no
  difference). PostgreSQL's NOTIFY wakes the other side at once where the store offers it;
  polling does the rest (SQLite).
- **Fencing**: every transaction for a table begins by checking, in that transaction, that
  this process still holds the lease at the epoch it took it (bot/store/fence.py). A process
  that lost a table (it stalled past its lease and another took over) has that write
  rolled back, drops the table from memory and cancels its timers; the command goes to
  the new holder. Behind that, the actions' primary key (hand, seq) refuses a second
  action for a turn: a conflict is answered as a stale turn and the table reloaded.

A forwarded command is run at most once: if its holder dies after taking it and before
answering, the sender answers that the table moved (the player sends it again), unless the
command came in a platform update that its action marked done (bot/platform/updates.py): then it was done.
Without ``STUDBOT_INSTANCE`` none of this runs: one process holds every table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from contextlib import AbstractContextManager
from typing import Final

from bot.cluster import leases
from bot.core import killpoints
from bot.core.config import Settings
from bot.core.errors import UsageError
from bot.core.i18n import DEFAULT_LANGUAGE, language_of
from bot.core.ports import Clock, Inbound, Reply, TimerHandle
from bot.platform.updates import UpdateLog, applying
from bot.store import Store, StoreDuplicate, Tx
from bot.store.fence import Fence, LeaseLost, TableMoved, fenced
from bot.store.fence import active as active_fence
from bot.table.runtime import LocalBot, Runtime
from bot.table.timers import cancel_timers
from bot.text.grammar import parse

log = logging.getLogger(__name__)

MOVED: Final = "moved"
"""A Reply's code between processes: the table is not (or no longer) held here; route again."""
HOPS: Final = 4
"""Routings tried for one command before answering that the table is busy moving."""
FORWARD_TIMEOUT: Final = 60.0
"""Seconds a forwarded command waits for its answer at most."""
POLL: Final = 0.02
"""Seconds between two looks at the inbox when nothing wakes the loop earlier."""
INBOX_KEEP: Final = 300.0
"""Seconds an answered inbox row whose sender never collected it is kept."""


def command_name(text: str) -> str | None:
    try:
        return parse(text).name
    except UsageError:
        return None


class Cluster:
    """The leases, forwarding and takeovers of one process (a :class:`~bot.table.runtime.TableGuard`); it
    calls the application of the process through :class:`~bot.table.runtime.LocalBot` (:meth:`bind`)."""

    def __init__(self, *, store: Store, clock: Clock, settings: Settings) -> None:
        assert settings.instance, "cluster mode needs STUDBOT_INSTANCE"
        self.store = store
        self.clock = clock
        self._bot: LocalBot | None = None
        self.owner = settings.instance
        self.lease = settings.lease_seconds
        self.held: dict[int, int] = {}
        """Table id -> the epoch this process took its lease at."""
        self._taking: dict[int, asyncio.Lock] = {}
        self._tick: TimerHandle | None = None
        self._idle = asyncio.Event()
        """Set but while a beat runs: a stop waits for the beat before the store closes under it."""
        self._idle.set()
        self._inbox_task: asyncio.Task[None] | None = None
        self._queues: dict[int, asyncio.Queue[tuple[int, Inbound]]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()
        self._answers: dict[int, asyncio.Event] = {}
        """Inbox id -> set when its answer is notified, for each command this process forwarded."""
        self._closed = False
        self._last_gc = 0.0
        self._confirmed: set[int] = set()
        """Tables whose lease the last renewal found held here (one taken since is not judged yet)."""

    def bind(self, bot: LocalBot) -> None:
        """The application this process runs (built after the guard its tables are fenced by)."""
        self._bot = bot

    @property
    def bot(self) -> LocalBot:
        assert self._bot is not None, "Cluster.bind first"
        return self._bot

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Take this process's own tables back (a restart) and every table nobody holds; then
        renew, sweep and serve the inbox until :meth:`close`."""
        await self._beat()
        self._inbox_task = asyncio.get_running_loop().create_task(self._serve_inbox(), name=f"inbox-{self.owner}")
        await self._listen()

    def stop_taking(self) -> None:
        """A stop begins: no more renewals, sweeps or inbox rows taken (those running finish)."""
        self._closed = True
        if self._tick is not None:
            self._tick.cancel()
        if self._inbox_task is not None:
            self._inbox_task.cancel()
        self._wake.set()

    async def close(self) -> None:
        """After the bot stopped: leave every table to the other processes at once."""
        self.stop_taking()
        if self._inbox_task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._inbox_task
        with contextlib.suppress(TimeoutError):  # a beat taking a table as the stop began: let it end first
            await asyncio.wait_for(self._idle.wait(), self.lease)
        with fenced(None):
            try:
                await leases.release(self.store, owner=self.owner, table_ids=list(self.held))
            except Exception:  # they expire on their own
                log.exception("releasing %d table leases failed", len(self.held))
        self.held.clear()

    def halt(self) -> None:
        """Stop everything at once, leases kept (what kill -9 does; for tests)."""
        self.stop_taking()
        for task in self._workers.values():
            task.cancel()

    # ------------------------------------------------------------------ the funnel

    async def route(self, msg: Inbound) -> Reply:
        """Answer one command here, or at the process holding its table (a command that needs none:
        here, whichever process received it)."""
        name = command_name(msg.text)
        if name is None or not self.bot.needs_table(name):
            reply = await self.bot.handle_local(msg)
            if name == "lang" and reply.ok and msg.text.split()[1:]:  # the others learn the user's choice
                with fenced(None):
                    await self.store.notify(leases.LANGUAGE, f"{msg.platform}\t{msg.user}")
            return reply
        for _ in range(HOPS):
            holder = await self._route(msg)
            reply = await (self._local(msg) if holder is None else self._forward(msg, holder))
            if reply.code != MOVED:
                return reply
        return Reply(self.bot.translator(msg)("cluster.busy"), private=True, ok=False, code="busy")

    async def _route(self, msg: Inbound) -> int | None:
        """None: handle it here (the table is held here now, or there is none); else the id of
        the table another live process holds."""
        if self.bot.tables.of(msg) is not None:
            return None
        with fenced(None):
            found = await leases.table_in(self.store, platform=msg.platform, channel=msg.channel)
            if found is None:
                return None
            table_id, owner, expires = found
            free = owner is None or owner == self.owner or expires < self.clock.now()
            if free and await self.take(table_id):
                return None
        return table_id

    async def _local(self, msg: Inbound, *, forwarded: bool = False) -> Reply:
        """Run the command here, its writes fenced by the lease of the channel's table."""
        rt = self.bot.tables.of(msg)
        if forwarded and (rt is None or self.bot.stopping):
            return Reply("", ok=False, code=MOVED)
        guard = self.fence_of(rt) if rt is not None else Fence(owner=self.owner, table_id=None, epoch=None)
        try:
            with fenced(guard):
                return await self.bot.handle_local(msg)
        except (LeaseLost, TableMoved) as exc:
            self._lose(exc.table_id if isinstance(exc, LeaseLost) else guard.table_id)
            if guard.writes:  # something was committed before the lease was found gone: never twice
                log.warning("table %s: lost mid-command %r after %d writes", guard.table_id, msg.text, guard.writes)
                return Reply(self.bot.translator(msg)("cluster.moved"), private=True, ok=False, code="moved_midway")
            return Reply("", ok=False, code=MOVED)
        except StoreDuplicate:  # a row another process stored first
            if command_name(msg.text) in ("new", "tourney"):  # another process opened a table there first
                return Reply("", ok=False, code=MOVED)
            log.warning("table %s: %r conflicted with a row already stored; reloading it", guard.table_id, msg.text)
            self._lose(guard.table_id)
            return Reply(self.bot.translator(msg)("refuse.turn_over"), private=True, ok=False, code="stale")

    # ------------------------------------------------------------------ leases

    def raises(self, exc: Exception) -> bool:
        """A row another process stored first: :meth:`_local` answers it."""
        return isinstance(exc, StoreDuplicate)

    def fence_of(self, rt: Runtime) -> Fence:
        return Fence(owner=self.owner, table_id=rt.table.id, epoch=self.held.get(rt.table.id))

    def fenced(self, rt: Runtime) -> AbstractContextManager[None]:
        """A timer's or a background step's writes for ``rt``, under its lease."""
        return fenced(self.fence_of(rt))

    def lost(self, rt: Runtime) -> None:
        """A write for ``rt`` found the lease gone: drop the table."""
        self._lose(rt.table.id)

    async def created(self, tx: Tx, table_id: int) -> None:
        """In the transaction that creates a table: its lease, to this process."""
        epoch = await leases.create(tx, table_id=table_id, owner=self.owner,
                                    expires_at=self.clock.now() + self.lease)
        self.held[table_id] = epoch
        guard = active_fence()
        if guard is not None:  # the rest of the command writes under it
            guard.table_id, guard.epoch = table_id, epoch

    async def take(self, table_id: int) -> bool:
        """Take the table's lease if nobody live holds it, and restore the table here."""
        if self._closed or self.bot.stopping:
            return False
        lock = self._taking.setdefault(table_id, asyncio.Lock())
        async with lock:
            if table_id in self.held and any(rt.table.id == table_id for rt in self.bot.tables.values()):
                return True
            with fenced(None):
                now = self.clock.now()
                epoch = await leases.take(self.store, table_id=table_id, owner=self.owner, now=now,
                                          expires_at=now + self.lease)
                if epoch is None:
                    return False
                self.held[table_id] = epoch
                found = await self.store.open_tables(table_id=table_id)
                if not found:  # closed meanwhile: its lease lapses
                    self.held.pop(table_id, None)
                    return False
                await self.bot.reload(table_id)
            if self._closed or self.bot.stopping:  # a stop began meanwhile: the lease is released with the rest
                return False
            log.info("%s: took table %s (epoch %s)", self.owner, table_id, epoch)
            try:
                with fenced(Fence(owner=self.owner, table_id=table_id, epoch=epoch)):
                    await self.bot.adopt(found[0])
            except LeaseLost:
                self._lose(table_id)
                return False
            return True

    def _lose(self, table_id: int | None) -> None:
        if table_id is None:
            return
        self.held.pop(table_id, None)
        for rt in list(self.bot.tables.values()):
            if rt.table.id == table_id:
                log.warning("%s: table %s is held by another process now; dropped here", self.owner, table_id)
                rt.moved = rt.closed = True
                cancel_timers(rt)
                self.bot.tables.drop(rt)
        self.bot.dropped(table_id)

    async def _beat(self) -> None:
        """Renew what is held (dropping what is not any more), take back this process's own
        leases from before a restart, and take over the tables nobody holds."""
        if self._closed:
            return
        self._idle.clear()
        try:
            with fenced(None):
                now = self.clock.now()
                renewed = await leases.renew(self.store, owner=self.owner, now=now, expires_at=now + self.lease)
                for table_id, epoch in list(self.held.items()):
                    if renewed.get(table_id) == epoch or self._taking_now(table_id):
                        continue
                    if table_id in self._confirmed or table_id in renewed:  # another process took it
                        self._lose(table_id)
                self._confirmed = {tid for tid, epoch in self.held.items() if renewed.get(tid) == epoch}
                for table_id in sorted(set(renewed) | set(await leases.orphans(self.store, now=now))):
                    if table_id not in self.held and not self._closed:
                        await self.take(table_id)
                if now - self._last_gc > INBOX_KEEP:
                    self._last_gc = now
                    await leases.sweep_inbox(self.store, before=now - INBOX_KEEP)
        except Exception:
            log.exception("%s: renewing the table leases failed", self.owner)
        finally:
            self._idle.set()
            if not self._closed:
                self._tick = self.clock.call_at(self.clock.now() + self.lease / 3, self._beat)

    def _taking_now(self, table_id: int) -> bool:
        lock = self._taking.get(table_id)
        return lock is not None and lock.locked()

    # ------------------------------------------------------------------ the inbox

    async def _forward(self, msg: Inbound, table_id: int) -> Reply:
        """Send the command to the table's holder and wait for its answer."""
        with fenced(None):
            inbox_id = await leases.post(self.store, table_id=table_id, msg=msg, received_by=self.owner,
                                         now=self.clock.now())
            answered = self._answers[inbox_id] = asyncio.Event()
            try:
                return await self._await_answer(msg, table_id, inbox_id, answered)
            finally:
                self._answers.pop(inbox_id, None)

    async def _await_answer(self, msg: Inbound, table_id: int, inbox_id: int, answered: asyncio.Event) -> Reply:
        store = self.store
        started = last_check = time.monotonic()
        delay = 0.002
        while True:
            with contextlib.suppress(TimeoutError):  # woken by the holder's notification, or polling
                await asyncio.wait_for(answered.wait(), delay)
            answered.clear()
            delay = min(delay * 2, POLL)
            status, reply = await leases.answer_of(store, inbox_id)
            if status == "done" and reply is not None:
                await leases.forget(store, inbox_id)
                return reply
            if time.monotonic() - last_check < self.lease / 3:
                continue
            last_check = time.monotonic()
            if status == "new" and await self._holder_dead(table_id) and await leases.cancel(store, inbox_id):
                await leases.forget(store, inbox_id)
                return Reply("", ok=False, code=MOVED)  # nobody took it: route it again
            # taken by a process that died (or lost the table: its lease may be another's already, even this
            # process's, taken over meanwhile): it may or may not have been done
            if status == "taken" and await leases.taker_gone(store, inbox_id=inbox_id, now=self.clock.now()):
                await leases.forget(store, inbox_id)
                if msg.update_id is not None and await UpdateLog(store, platform=msg.platform).is_done(msg.update_id):
                    return Reply("")  # its action was stored, with its update marked done (bot/platform/updates.py)
                return Reply(self.bot.translator(msg)("cluster.moved"), private=True, ok=False, code="moved_midway")
            if time.monotonic() - started > FORWARD_TIMEOUT:
                if await leases.cancel(store, inbox_id):
                    await leases.forget(store, inbox_id)
                return Reply(self.bot.translator(msg)("cluster.busy"), private=True, ok=False, code="busy")

    async def _holder_dead(self, table_id: int) -> bool:
        rows = await self.store.fetch("SELECT expires_at FROM table_leases WHERE table_id = ?", (table_id,))
        return not rows or float(rows[0]["expires_at"]) < self.clock.now()

    async def _serve_inbox(self) -> None:
        """Take the commands forwarded to this process's tables, in order, table by table."""
        store = self.store
        with fenced(None):
            while not self._closed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), POLL)
                self._wake.clear()
                if self._closed:
                    return
                try:
                    if not self.held or not await leases.waiting(store, owner=self.owner):
                        continue
                    for inbox_id, table_id, msg in await leases.claim(store, owner=self.owner):
                        self._queues.setdefault(table_id, asyncio.Queue()).put_nowait((inbox_id, msg))
                        worker = self._workers.get(table_id)
                        if worker is None or worker.done():
                            self._workers[table_id] = asyncio.get_running_loop().create_task(
                                self._work_table(table_id))
                except Exception:
                    log.exception("%s: reading the inbox failed", self.owner)
                    await asyncio.sleep(POLL)

    async def _work_table(self, table_id: int) -> None:
        queue = self._queues[table_id]
        while not queue.empty():
            inbox_id, msg = queue.get_nowait()
            await self._relearn_language(msg.platform, msg.user)  # chosen at another process, maybe
            taking = self._taking.get(table_id)
            if taking is not None and taking.locked():  # its lease is taken, the table not restored yet
                async with taking:
                    pass
            with self.bot.work.track():
                try:
                    with applying(msg.platform, msg.update_id):  # the sender's update: marked with its action
                        reply = await self._local(msg, forwarded=True)
                except Exception:
                    log.exception("%s: forwarded command %r failed", self.owner, msg.text)
                    reply = Reply(self.bot.translator(msg)("error.bug"), private=True, ok=False)
                killpoints.reached("inbox.applied")
                with fenced(None):
                    try:
                        await leases.done(self.store, inbox_id=inbox_id, reply=reply)
                    except Exception:
                        log.exception("%s: answering forwarded command %s failed", self.owner, inbox_id)

    async def reachable(self, *, platform: str, user: str) -> None:
        """The user can get private messages now: the processes holding their other tables are told
        (PostgreSQL; on SQLite only this process's tables hear it)."""
        with fenced(None):
            await self.store.notify(leases.REACHABLE, f"{platform}\t{user}")

    async def _relearn_language(self, platform: str, user: str) -> None:
        with fenced(None):
            try:
                known = await leases.language(self.store, platform=platform, user=user)
            except Exception:
                log.exception("reading the language of %s:%s failed", platform, user)
                return
        if known is not None:
            self.bot.learn_language(platform=platform, user=user, lang=language_of(known[0]) or DEFAULT_LANGUAGE,
                                    chosen=known[1])

    async def _listen(self) -> None:
        """PostgreSQL's notifications wake the inbox loop and the forwarded commands' waits at once."""

        def wake(_: str) -> None:
            self._wake.set()

        def answered(payload: str) -> None:
            event = self._answers.get(int(payload)) if payload.isdigit() else None
            if event is not None:
                event.set()

        async def relearn(payload: str) -> None:
            platform, _, user = payload.partition("\t")
            await self._relearn_language(platform, user)

        async def reached(payload: str) -> None:
            platform, _, user = payload.partition("\t")
            if self.bot.stopping:
                return
            with self.bot.work.track(), fenced(None):
                await self.bot.mark_reachable_local(platform=platform, user=user)

        try:
            await self.store.listen(leases.REACHABLE, reached)
            await self.store.listen(leases.INBOX, wake)
            await self.store.listen(leases.ANSWERED, answered)
            await self.store.listen(leases.LANGUAGE, relearn)
        except Exception:
            log.exception("LISTEN failed; polling only")
