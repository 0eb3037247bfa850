"""The application: every table's commands, behind one funnel.

``StudBot.handle(Inbound)`` is the single entry point for every platform. A table
handles its commands one at a time (a lock per table); tables never wait on each
other. Every accepted change is committed to the store before it is acknowledged or
shown, and on start every open table and hand in progress is restored, timers
included. :func:`bot.bootstrap.build_bot` wires a StudBot from its parts: the tables
(bot/table), the features (bot/tourney, bot/stats, bot/history) and, in cluster mode,
the cluster (bot/cluster) as the tables' :class:`~bot.table.runtime.TableGuard`.

Every command has one :class:`~bot.table.routes.Route` in the registry, given by the
object that handles it (its ``routes()``); the dispatch is a lookup.

Errors come in three tiers: malformed input gets usage text
(:class:`~bot.text.grammar.UsageError`); a rule or state violation gets the reason
(:class:`Refusal`, or the engine's own errors); a bug is logged with its
traceback and the user gets a short apology, while the table keeps running.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

from bot.chips.audit import Check, audit
from bot.core.config import Settings
from bot.core.errors import Refusal, UsageError
from bot.core.i18n import EN, LANGUAGE_NAMES, Translator, translator
from bot.core.lifecycle import Work
from bot.core.model import MIX, Table, UserLanguage
from bot.core.names import display_name
from bot.core.ports import Clock, Inbound, Messenger, Reply, TableAddress
from bot.history import History
from bot.platform import updates
from bot.platform.answers import Answers
from bot.stats.answers import StatsAnswers
from bot.store import Store
from bot.store.fence import LeaseLost, TableMoved, is_fenced
from bot.table import delivery
from bot.table.commands import TableCommands
from bot.table.dealer import Dealer
from bot.table.fairness import Fairness, record_lines, verdict_text
from bot.table.output import TableOutput
from bot.table.routes import Registry, Route, Routed
from bot.table.runtime import NoGuard, TableGuard, Tables, community_of, table_language
from bot.table.seating import Seating
from bot.text import render
from bot.text.grammar import Command, help_text, parse, rules_text
from bot.tourney.service import Tourneys
from engine import EngineError, HandFile, Stakes
from engine.verify import verify_hand_file

__all__ = ["STOP_GRACE", "StudBot"]

log = logging.getLogger(__name__)

STOP_GRACE = 10.0
"""Seconds a stop waits for the commands and timer callbacks in flight."""


class StudBot:
    """Tables in every channel of every platform, sharing one store, messenger and clock: the funnel,
    the command registry, the error tiers, start and stop, and the commands that need no table."""

    def __init__(self, *, store: Store, clock: Clock, settings: Settings, fair: Fairness, output: TableOutput,
                 tables: Tables, dealer: Dealer, guard: TableGuard, seating: Seating, commands: TableCommands,
                 tourneys: Tourneys, history: History, stats: StatsAnswers, deliveries: delivery.Deliveries,
                 work: Work, answers: Answers, handlers: Iterable[Routed] = (),
                 audit_checks: Sequence[Check] = ()) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.fair = fair
        """Server seeds, player seeds and reveals (provably fair decks)."""
        self.output = output
        self.tables = tables
        """The tables held here, by "platform:channel"."""
        self.dealer = dealer
        self.guard = guard
        """Cluster mode (STUDBOT_INSTANCE set): the cluster; else a :class:`NoGuard`."""
        self.seating = seating
        self.commands = commands
        self.tourneys = tourneys
        self.history = history
        self.stats = stats
        self.deliveries = deliveries
        self.work = work
        """Commands and timer callbacks in flight (a stop waits for them)."""
        self.registry = Registry.of([self, seating, commands, tourneys, *handlers])
        self.answers = answers
        """The platform requests in flight (a Discord interaction whose answer is owed), for the adapters."""
        self.audit_checks = tuple(audit_checks)
        """The audits of the parts that hold chips of their own (sit-and-gos), run with the chips' at start."""

    # ------------------------------------------------------------------ what adapters and tests read

    @property
    def messenger(self) -> Messenger:
        return self.output.messenger

    @property
    def languages(self) -> dict[tuple[str, str], UserLanguage]:
        """(platform, user) -> (language, chosen with 'lang')."""
        return self.output.languages.known

    @property
    def stopping(self) -> bool:
        """Set by a stop: no command is taken and no timer acts any more."""
        return self.dealer.stopping

    @stopping.setter
    def stopping(self, value: bool) -> None:
        self.dealer.stopping = value

    @property
    def cluster(self) -> TableGuard | None:
        """The cluster of this process, in cluster mode."""
        return None if isinstance(self.guard, NoGuard) else self.guard

    def translator_for(self, *, platform: str, user: str, locale: str | None = None) -> Translator:
        """The language to write to ``user`` in (see :meth:`bot.table.output.Languages.translator_for`)."""
        return self.output.translator_for(platform=platform, user=user, locale=locale)

    def translator(self, msg: Inbound) -> Translator:
        """The sender's translator."""
        return self.output.tr(msg)

    def table_language(self, table: TableAddress) -> str | None:
        """The language of the table held here at ``table``'s channel (None: none is held here)."""
        rt = self.tables.get(table.key)
        return rt.table.lang if rt is not None else None

    # ------------------------------------------------------------------ start

    async def start(self) -> None:
        """Audit the chips (the log says how it went), restore every open table and hand in
        progress, and re-arm their timers (cluster mode: the tables this process is to hold)."""
        report = await audit(self.store, checks=self.audit_checks)
        (log.info if report.ok else log.error)("%s", report.summary())
        await self.output.languages.load()
        await self.tourneys.load()
        await self.guard.start()

    async def adopt(self, table: Table) -> None:
        """Hold an open table here: restore it, its hand in progress and its timers."""
        await self.dealer.adopt(table)

    async def reload(self, table_id: int) -> None:
        """What the features keep of a table about to be taken over, read anew."""
        await self.tourneys.load_table(table_id)

    def dropped(self, table_id: int) -> None:
        """A table is held by another process now: the features forget it."""
        self.tourneys.forget(table_id)

    def learn_language(self, *, platform: str, user: str, lang: str, chosen: bool) -> None:
        self.output.languages.learn(platform=platform, user=user, lang=lang, chosen=chosen)

    def needs_table(self, name: str) -> bool:
        return self.registry.needs_table(name)

    async def mark_reachable(self, *, platform: str, user: str) -> int:
        """The user can now get private messages (say, they opened the private chat):
        clear the flag on their seats and send the cards of any hand they are in.
        Returns how many seats changed."""
        if self.stopping:
            return 0  # the next message they send after the restart tells again
        with self.work.track():
            await self.guard.reachable(platform=platform, user=user)  # the processes holding their other tables
            return await self.seating.mark_reachable(platform=platform, user=user)

    async def mark_reachable_local(self, *, platform: str, user: str) -> int:
        """:meth:`mark_reachable` at the tables held here only (another process told it)."""
        return await self.seating.mark_reachable(platform=platform, user=user)

    async def board_moved(self, table: TableAddress, ref: str) -> None:
        """A messenger that shows boards in the background (bot/platform/outbox.py) showed the table's board under a
        new reference (Telegram: a new message for the next hand): stored at once, not at the table's next
        change, so that a restart or a takeover edits the newest board, never the one before it."""
        rt = self.tables.get(table.key)
        if rt is None or rt.closed or rt.table.board_ref == ref:
            return
        rt.table.board_ref = ref
        with self.dealer.fenced(rt):
            try:
                async with self.store.atomic() as tx:
                    await tx.save_board_ref(rt.table.id, ref)
            except LeaseLost:
                self.dealer.lost(rt)

    async def close(self, *, grace: float = STOP_GRACE) -> None:
        """Stop, in order, before the store closes: refuse new commands (with a friendly
        answer), cancel every timer (house bots act on timers), and wait up to ``grace``
        seconds for the commands and timer callbacks in flight. What is left mid-hand is
        in the database; :meth:`start` resumes it."""
        self.stopping = True
        self.guard.stop_taking()
        self.dealer.cancel_timers()
        if not await self.work.idle(timeout=grace):
            log.warning("stopping with %d commands or timers still running after %gs", self.work.count, grace)
        self.dealer.cancel_timers()  # work that finished meanwhile may have armed a timer
        await self.deliveries.close()
        await self.guard.close()  # cluster mode: the other processes take the tables over at once

    # ------------------------------------------------------------------ the funnel

    async def handle(self, msg: Inbound) -> Reply:
        """Answer one command, in the sender's language. Never raises: bad input and bugs become replies."""
        if self.stopping:
            return Reply(self.translator(msg)("refuse.stopping"), private=True, ok=False, code="stopping")
        with self.work.track(), updates.applying(msg.platform, msg.update_id):
            return await self.guard.route(msg)  # here, or at the process holding the table

    async def handle_local(self, msg: Inbound) -> Reply:
        """Answer one command in this process (cluster mode: its table, if it needs one, is held here)."""
        tr = EN
        try:
            tr = await self.output.languages.remember(msg)
            command = parse(msg.text)
            return await self._dispatch(msg, command)
        except UsageError as exc:
            return Reply(exc.text(tr), private=True, ok=False)
        except Refusal as exc:
            return Reply(exc.text(tr), private=True, ok=False, code=exc.code)
        except EngineError as exc:
            return Reply(_friendly(str(exc)), private=True, ok=False)
        except (LeaseLost, TableMoved):
            raise  # cluster mode: the table is another process's now (bot/cluster/cluster.py routes it there)
        except Exception as exc:
            if self.guard.raises(exc):
                raise  # a row another process stored first (bot/cluster/cluster.py answers)
            log.exception("command %r in %s:%s failed", msg.text, msg.platform, msg.channel)
            return Reply(tr("error.bug"), private=True, ok=False)

    async def _dispatch(self, msg: Inbound, command: Command) -> Reply:
        route = self.registry.route(command.name)
        if route.free is not None:
            return await route.free(msg, command)
        rt = self.tables.of(msg)
        if rt is None:
            if is_fenced():  # cluster mode: it was held here a moment ago
                raise TableMoved()
            raise Refusal("refuse.no_table")
        async with rt.lock:
            rt.check_open()
            if rt.table.tournament is not None and route.at_tournament is not None:
                return await route.at_tournament(rt, msg, command)
            assert route.at_table is not None, command.name
            return await route.at_table(rt, msg, command)

    # ------------------------------------------------------------------ the commands that need no table

    def routes(self) -> Mapping[str, Route]:
        return {"help": Route(free=self._help), "rules": Route(free=self._rules), "lang": Route(free=self._lang),
                "top": Route(free=self._top), "stats": Route(free=self._stats),
                "new": Route(free=self._new, at_channel=True), "hand": Route(free=self._history),
                "export": Route(free=self._history), "replay": Route(free=self._history),
                "verify": Route(free=self._verify)}

    async def _help(self, msg: Inbound, command: Command) -> Reply:
        tr = self.translator(msg)
        return Reply(help_text(str(command.args[0]) if command.args else None, tr), private=True)

    async def _rules(self, msg: Inbound, command: Command) -> Reply:
        """How the channel's table's game is played (the hand in progress's, or the mix's), else Stud Hi-Lo."""
        here = self.tables.of(msg)
        game = "stud8" if here is None else here.table.game
        if here is not None and here.hand is not None and not here.hand.is_over and game != MIX:
            game = here.hand.game.value  # a change of game waits for the next hand
        return Reply(rules_text(self.translator(msg), game), private=True)

    async def _stats(self, msg: Inbound, command: Command) -> Reply:
        tr = self.translator(msg)
        here = self.tables.of(msg)
        return await self.stats.stats(
            community=community_of(msg), user=msg.user, name=msg.name, asked=str(command.args[0]) if command.args
            else None, tr=tr, image=msg.platform != "console" and (here is None or here.table.view == "image"))

    async def _history(self, msg: Inbound, command: Command) -> Reply:
        """'hand N', 'export ...', 'replay ...': finished hands, no open table needed."""
        return await self.history.handle(msg, command, self.translator(msg))

    async def _new(self, msg: Inbound, command: Command) -> Reply:
        rt = await self.tables.open(msg, stakes=Stakes(), taken="refuse.table_exists",
                                    lang=lambda: table_language(msg.community_locale) or self.translator(msg).lang)
        table = rt.table
        async with rt.lock:
            await self.output.say(rt, "line.opens", name=display_name(msg.name) or "player",
                                  stakes=lambda tr: render.stakes_text(table, tr))
            await self.output.publish(rt, new=True)
        return Reply(self.translator(msg)("reply.opened"))

    async def _verify(self, msg: Inbound, command: Command) -> Reply:
        """'verify N': hand N of the channel's table (the open one, else the last one closed there, as for
        'hand N'), checked as ``python -m engine.verify`` does."""
        tr = self.translator(msg)
        no = int(command.args[0])
        table_id = await self.history.archive.table_id(platform=msg.platform, channel=msg.channel)
        text = await self.store.hand_file(table_id, no) if table_id is not None else None
        if table_id is None or text is None:
            raise Refusal("fair.no_hand", no=no)
        hand_file = HandFile.from_json(text)
        if hand_file.fair is None:
            raise Refusal("fair.no_record", no=no)
        if hand_file.fair.server_seed is None:
            raise Refusal("fair.not_revealed", no=no)
        verdict = verify_hand_file(hand_file)
        path = self.fair.write_hand_file(platform=msg.platform, table_id=table_id, hand_no=no, text=text) \
            if msg.platform == "console" else None
        how = tr("fair.how_file", path=str(path)) if path is not None else tr("fair.how_export", no=no)
        return Reply("\n".join([verdict_text(verdict, tr), record_lines(hand_file, tr), how]), private=True)

    async def _top(self, msg: Inbound, command: Command) -> Reply:
        tr = self.translator(msg)
        if command.args:
            return await self.stats.top_net(community=community_of(msg), period=str(command.args[1]), tr=tr)
        rows = await self.store.leaderboard(community_of(msg))
        if not rows:
            return Reply(tr("reply.no_top"), private=True)
        return Reply("\n".join(f"{i}. {name} {total}" for i, (name, total) in enumerate(rows, 1)), private=True)

    async def _lang(self, msg: Inbound, command: Command) -> Reply:
        """'lang': the sender's language; 'lang ru': choose it (kept over the platform's locale)."""
        if not command.args:
            tr = self.translator(msg)
            return Reply(tr("reply.lang_now", name=LANGUAGE_NAMES[tr.lang]), private=True)
        lang = str(command.args[0])
        await self.output.languages.choose(platform=msg.platform, user=msg.user, lang=lang)
        return Reply(translator(lang)("reply.lang_set"), private=True)


def _friendly(message: str) -> str:
    """Engine messages are precise; drop the parts that only matter to developers."""
    return message[0].upper() + message[1:] if message else message
