"""The application: every table's commands, hands, timers and chips, behind one funnel.

``StudBot.handle(Inbound)`` is the single entry point for every platform. A table
handles its commands one at a time (a lock per table); tables never wait on each
other. Every accepted change is committed to SQLite before it is acknowledged or
shown, and on start every open table and hand in progress is restored, timers
included.

Errors come in three tiers: malformed input gets usage text
(:class:`~bot.text.grammar.UsageError`); a rule or state violation gets the reason
(:class:`Refusal`, or the engine's own errors); a bug is logged with its
traceback and the user gets a short apology, while the table keeps running.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import secrets
from dataclasses import replace

from bot.chips.audit import audit
from bot.cluster.cluster import Cluster
from bot.core.config import Settings
from bot.core.errors import Refusal, UsageError
from bot.core.i18n import EN, LANGUAGE_NAMES, Translator, family, language_of, translator
from bot.core.lifecycle import Work
from bot.core.limits import MAX_TIMER, MIN_TIMER, STAKE_RANGES, VIEWS
from bot.core.model import Seat, Table
from bot.core.names import display_name
from bot.core.ports import Clock, Inbound, Messenger, Reply, TableAddress
from bot.history import History
from bot.platform import updates
from bot.stats.answers import StatsAnswers
from bot.store import Store, StoreDuplicate
from bot.store.fence import LeaseLost, TableMoved, is_fenced
from bot.table import delivery
from bot.table.dealer import Dealer, Runtime, cancel_timers
from bot.table.fairness import Fairness, record_lines, verdict_text
from bot.table.seating import Handler, Seating
from bot.text import render, results
from bot.text.grammar import (
    ACTIONS,
    Command,
    command_word,
    help_text,
    parse,
    rules_text,
    usage_text,
)
from bot.tourney.audit import tournament_problems
from bot.tourney.service import AT_TABLE, Tourneys
from engine import Action, EngineError, HandFile, IllegalActionError, Stakes, StakesError
from engine.verify import verify_hand_file

log = logging.getLogger(__name__)

STOP_GRACE = 10.0
"""Seconds a stop waits for the commands and timer callbacks in flight."""


class StudBot(Dealer):
    """Tables in every channel of every platform, sharing one store, messenger and clock."""

    cluster: Cluster | None

    def __init__(self, *, store: Store, messenger: Messenger, clock: Clock, settings: Settings,
                 rng: random.Random | None = None) -> None:
        self.store = store
        self.messenger = messenger
        self.clock = clock
        self.settings = settings
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()
        self.bot_rng = random.Random(self.rng.getrandbits(64))
        # A seeded rng (script mode, tests): server seeds derived from it, the same every run; else `secrets`.
        script_key = None if isinstance(self.rng, random.SystemRandom) \
            else self.rng.getrandbits(256).to_bytes(32, "big")
        self.fair = Fairness(store=store, script_key=script_key)
        self.tables: dict[str, Runtime] = {}
        self._opening = asyncio.Lock()  # two 'new' in one channel at once: one table
        self.languages: dict[tuple[str, str], tuple[str, bool]] = {}
        self.work = Work()
        self.stopping = False
        self.deliveries = delivery.Deliveries(store=store, messenger=messenger)
        self.history = History(store)
        self.tourneys = Tourneys(self)
        self.hooks = self.tourneys
        self.stats = StatsAnswers(store=store, clock=clock)
        self.seating = Seating(self)
        self.cluster = Cluster(self, owner=settings.instance, lease=settings.lease_seconds) \
            if settings.instance else None
        """Cluster mode (STUDBOT_INSTANCE set): this process holds only the tables it has a lease on."""

    # ------------------------------------------------------------------ start

    async def start(self) -> None:
        """Audit the chips (the log says how it went), restore every open table and hand in
        progress, and re-arm their timers."""
        report = await audit(self.store, checks=(tournament_problems,))
        (log.info if report.ok else log.error)("%s", report.summary())
        self.languages = await self.store.user_langs()
        await self.tourneys.load()
        if self.cluster is not None:  # its own tables back, and those nobody holds
            await self.cluster.start()
            return
        for table in await self.store.open_tables():
            await self._adopt(table)

    async def _adopt(self, table: Table) -> None:
        """Hold an open table here: restore it, its hand in progress and its timers."""
        self.tourneys.attach(table)
        rt = Runtime(table=table)
        self.tables[f"{table.platform}:{table.channel}"] = rt
        async with rt.lock:
            await self._restore(rt)

    async def _restore(self, rt: Runtime) -> None:
        for past in await delivery.unannounced_finished(self.store, rt.table.id):
            await self._announce_again(rt, past)
        playing = await self.store.playing_hand(rt.table.id)
        if playing is not None:
            setup = playing.setup
            record = await self.fair.record(table=rt.table, hand_no=setup.hand_no)
            if record is not None:  # the deck again from the committed seed and the seeds of the deal
                deck = [str(c) for c in record.deck()]
                if deck != setup.deck:
                    log.error("table %s hand #%s: the stored deck is not the fair record's", rt.table.id,
                              setup.hand_no)
                setup = replace(setup, deck=deck)
            rt.fair = record
            hand = self._build_hand(setup)
            for action in playing.actions:
                hand.act(Action(action))
            rt.hand, rt.hand_id, rt.setup = hand, playing.id, setup
            await self._read_reveal(rt)  # the board's line with the commitment says when it is revealed
            announced = await delivery.announced_events(self.store, playing.id)
            rt.seen = len(hand.events) if announced is None else min(announced, len(hand.events))
            rt.deadline = playing.deadline
            log.info("table %s: restored hand #%s after %d actions", rt.table.id, setup.hand_no, len(playing.actions))
            if rt.seen < len(hand.events):  # what a crash kept from the table: say it now, then go on
                await self._say(rt, "line.restored")
                await self._after_change(rt)
            elif hand.is_over:
                await self._finish_hand(rt)
            else:
                self._arm_turn(rt)
            await self._publish(rt)
        elif rt.table.closing:  # stopped during a hand that is over: close as its settlement would have
            async with self.store.atomic() as tx:
                revealed = await self._close_table(tx, rt)
            await self._closed(rt, revealed)
        elif rt.table.running and rt.table.next_hand_at is not None:
            # The next hand's stored commitment shown again (a crash may have come before it was shown at
            # all), and its deal after the table's pause from now.
            await self._announce_next(rt)

    async def mark_reachable(self, *, platform: str, user: str) -> int:
        """The user can now get private messages (say, they opened the private chat):
        clear the flag on their seats and send the cards of any hand they are in.
        Returns how many seats changed."""
        if self.stopping:
            return 0  # the next message they send after the restart tells again
        with self.work.track():
            if self.cluster is not None:  # the processes holding their other tables hear it too
                await self.cluster.reachable(platform=platform, user=user)
            return await self._mark_reachable(platform=platform, user=user)

    async def _mark_reachable(self, *, platform: str, user: str) -> int:
        changed = 0
        for rt in list(self.tables.values()):
            if rt.table.platform != platform:
                continue
            async with rt.lock:
                seat = rt.table.seat_of(user)
                if seat is None or not seat.unreachable or rt.closed:
                    continue
                seat.unreachable = False
                with self._fenced(rt):
                    try:
                        async with self.store.atomic() as tx:
                            await tx.save_seat(rt.table.id, seat)
                    except LeaseLost:
                        self._lost(rt)
                        continue
                changed += 1
                es = rt.engine_seat(user)
                if rt.hand is not None and not rt.hand.is_over and es is not None:
                    await self._send_cards(rt, es)
        return changed

    async def board_moved(self, table: TableAddress, ref: str) -> None:
        """A messenger that shows boards in the background (bot/platform/outbox.py) showed the table's board under a
        new reference (Telegram: a new message for the next hand): stored at once, not at the table's next
        change, so that a restart or a takeover edits the newest board, never the one before it."""
        rt = self.tables.get(table.key)
        if rt is None or rt.closed or rt.table.board_ref == ref:
            return
        rt.table.board_ref = ref
        with self._fenced(rt):
            try:
                async with self.store.atomic() as tx:
                    await tx.save_board_ref(rt.table.id, ref)
            except LeaseLost:
                self._lost(rt)

    async def close(self, *, grace: float = STOP_GRACE) -> None:
        """Stop, in order, before the store closes: refuse new commands (with a friendly
        answer), cancel every timer (house bots act on timers), and wait up to ``grace``
        seconds for the commands and timer callbacks in flight. What is left mid-hand is
        in the database; :meth:`start` resumes it."""
        self.stopping = True
        if self.cluster is not None:
            self.cluster.stop_taking()
        for rt in self.tables.values():
            cancel_timers(rt)
        if not await self.work.idle(timeout=grace):
            log.warning("stopping with %d commands or timers still running after %gs", self.work.count, grace)
        for rt in self.tables.values():  # work that finished meanwhile may have armed a timer
            cancel_timers(rt)
        await self.deliveries.close()
        if self.cluster is not None:  # the other processes take the tables over at once
            await self.cluster.close()

    # ------------------------------------------------------------------ the funnel

    async def handle(self, msg: Inbound) -> Reply:
        """Answer one command, in the sender's language. Never raises: bad input and bugs become replies."""
        if self.stopping:
            return Reply(self._tr(msg)("refuse.stopping"), private=True, ok=False, code="stopping")
        with self.work.track(), updates.applying(msg.platform, msg.update_id):
            if self.cluster is not None:  # here, or at the process holding the table
                return await self.cluster.handle(msg)
            return await self._handle(msg)

    async def _handle(self, msg: Inbound) -> Reply:
        tr = EN
        try:
            tr = await self._remember_language(msg)
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
            if self.cluster is not None and isinstance(exc, StoreDuplicate):
                raise  # a row another process stored first (bot/cluster/cluster.py answers)
            log.exception("command %r in %s:%s failed", msg.text, msg.platform, msg.channel)
            return Reply(tr("error.bug"), private=True, ok=False)

    async def _remember_language(self, msg: Inbound) -> Translator:
        """Keep the platform's locale of the sender (for their cards, sent later); their translator."""
        lang = language_of(msg.locale)
        key = (msg.platform, msg.user)
        known = self.languages.get(key)
        if lang is not None and (known is None or (not known[1] and known[0] != lang)):
            async with self.store.atomic() as tx:
                await tx.save_user_lang(platform=msg.platform, user=msg.user, lang=lang, chosen=False)
            self.languages[key] = (lang, False)
        return self.translator_for(platform=msg.platform, user=msg.user, locale=msg.locale)

    async def _dispatch(self, msg: Inbound, command: Command) -> Reply:
        name = command.name
        if name in _TABLE_FREE:
            return await self._table_free(msg, command)
        rt = self.tables.get(f"{msg.platform}:{msg.channel}")
        if rt is None:
            if is_fenced():  # cluster mode: it was held here a moment ago
                raise TableMoved()
            raise Refusal("refuse.no_table")
        async with rt.lock:
            rt.check_open()
            if name in ACTIONS:  # the usual command: none of those below
                return await self._cmd_action(rt, msg, command)
            if rt.table.tournament is not None and name in AT_TABLE:
                return await self.tourneys.at_table(rt, msg, command)
            if name in self.seating.handlers:
                return await self.seating.command(rt, msg, command)
            handler: Handler = getattr(self, "_cmd_" + name.replace("-", "_"), self._cmd_action)
            return await handler(rt, msg, command)

    async def _table_free(self, msg: Inbound, command: Command) -> Reply:
        """A command answered without the channel's table (one of :data:`_TABLE_FREE`)."""
        name = command.name
        tr = self._tr(msg)
        if name == "help":
            return Reply(help_text(str(command.args[0]) if command.args else None, tr), private=True)
        if name == "rules":
            return Reply(rules_text(tr), private=True)
        if name == "lang":
            return await self._lang(msg, command)
        if name == "top" and command.args:
            return await self.stats.top_net(community=_community(msg), period=str(command.args[1]), tr=tr)
        if name == "top":
            return await self._top(msg)
        if name == "stats":
            here = self.tables.get(f"{msg.platform}:{msg.channel}")
            return await self.stats.stats(
                community=_community(msg), user=msg.user, name=msg.name, asked=str(command.args[0]) if command.args
                else None, tr=tr, image=msg.platform != "console" and (here is None or here.table.view == "image"))
        if name == "new":
            return await self._new(msg)
        if name in ("hand", "export"):  # finished hands: no open table needed
            return await self.history.handle(msg, command, tr)
        if name == "verify":
            return await self._verify(msg, command, tr)
        assert name == "tourney"
        return await self.tourneys.command(msg, command)

    # ------------------------------------------------------------------ commands

    async def _new(self, msg: Inbound) -> Reply:
        key = f"{msg.platform}:{msg.channel}"
        async with self._opening:
            if key in self.tables:
                raise Refusal("refuse.table_exists")
            stakes = Stakes()
            lang = _table_language(msg.community_locale) or self._tr(msg).lang
            async with self.store.atomic() as tx:
                table_id = await tx.create_table(
                    platform=msg.platform, community=_community(msg), channel=msg.channel, creator=msg.user,
                    stakes=stakes, timer=self.settings.turn_timer, now=self.clock.now(), lang=lang)
                if self.cluster is not None:
                    await self.cluster.created(tx, table_id)
            table = Table(id=table_id, platform=msg.platform, community=_community(msg), channel=msg.channel,
                          creator=msg.user, stakes=stakes, timer=self.settings.turn_timer, lang=lang)
            rt = Runtime(table=table)
            self.tables[key] = rt
        async with rt.lock:
            await self._say(rt, "line.opens", name=display_name(msg.name) or "player",
                            stakes=lambda tr: render.stakes_text(table, tr))
            await self._publish(rt, new=True)
        return Reply(self._tr(msg)("reply.opened"))

    async def _cmd_start(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        if rt.table.closing:  # stopped during this hand: a stop is final, as it always was
            raise Refusal("refuse.closing")
        if rt.hand is not None and not rt.hand.is_over:
            raise Refusal("refuse.playing")
        if rt.table.running:
            raise Refusal("refuse.running")
        if len(rt.table.ready_seats()) < 2:
            raise Refusal("refuse.two_needed")
        rt.table.running = True
        await self._announce_next(rt)  # the first hand's commitment on the board; its deal after the pause
        return Reply(self._tr(msg)("reply.dealing", seconds=render.seconds_text(self.settings.next_hand_delay)))

    async def _cmd_stop(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        """Close the table and give every stack back; during a hand, once it ends: it plays out as
        usual (a stop must not call off a hand its owner is losing), then its settlement closes the
        table. Said once: a second stop meanwhile changes nothing."""
        self._require_owner(rt, msg)
        table = rt.table
        tr = self._tr(msg)
        if rt.hand is not None and not rt.hand.is_over:
            if not table.closing:
                table.closing = True
                async with self.store.atomic() as tx:
                    await tx.save_table(table)
                await self._say(rt, "line.closes_after")
            return Reply(tr("reply.closes_after"), private=True)
        cancel_timers(rt)
        async with self.store.atomic() as tx:
            revealed = await self._close_table(tx, rt)
        await self._closed(rt, revealed)
        return Reply(tr("reply.closed"))

    async def _cmd_config(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        self._require_owner(rt, msg)
        table = rt.table
        o = {k: v for k, v in command.options.items() if isinstance(v, int)}
        for key, (low, high) in STAKE_RANGES.items():
            if key in o and not low <= o[key] <= high:
                raise Refusal("refuse.stake_range", key=key, low=low, high=high)
        view = command.options.get("view", table.view)
        if view not in VIEWS:
            raise Refusal("refuse.view", choices=" | ".join(VIEWS))
        lang = language_of(str(command.options.get("lang", table.lang))) or table.lang
        s = table.stakes
        wanted = {"ante": o.get("ante", s.ante), "bring_in": o.get("bring_in", s.bring_in),
                  "small": o.get("small", s.small_bet), "big": o.get("big", s.big_bet)}
        try:
            stakes = Stakes(ante=wanted["ante"], bring_in=wanted["bring_in"], small_bet=wanted["small"],
                            big_bet=wanted["big"])
        except StakesError:
            raise Refusal("refuse.stakes", ante=wanted["ante"], bring_in=wanted["bring_in"], small=wanted["small"],
                          big=wanted["big"]) from None
        timer = o.get("timer", table.timer)
        if not MIN_TIMER <= timer <= MAX_TIMER:
            raise Refusal("refuse.timer", low=MIN_TIMER, high=MAX_TIMER)
        reveal = command.options.get("reveal")
        if isinstance(reveal, str) and reveal != await self.fair.reveal_mode(table.id):
            await self.fair.set_reveal_mode(table_id=table.id, reveal=reveal)
            rt.reveal = reveal
            await self._say(rt, "fair.line_reveal_stop" if reveal == "stop" else "fair.line_reveal_hand")
        changed_view, changed_lang = view != table.view, lang != table.lang
        table.stakes, table.timer, table.view, table.lang = stakes, timer, str(view), lang
        async with self.store.atomic() as tx:
            await tx.save_table(table)
        playing = rt.hand is not None and not rt.hand.is_over
        if changed_lang:
            await self._say(rt, "line.lang")
        if set(o):
            await self._say(rt, "line.stakes_next" if playing else "line.stakes",
                            stakes=lambda tr: render.stakes_text(table, tr))
        if changed_view:
            await self._say(rt, "line.view_image" if table.view == "image" else "line.view_text")
        await self._publish(rt)
        return Reply(self._tr(msg)("reply.done"))

    async def _cmd_cards(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        hand, es = rt.hand, rt.engine_seat(msg.user)
        if hand is None or es is None:
            raise Refusal("refuse.no_cards")
        text = render.private_view(hand, es, hand_no=rt.table.hand_no, tr=self._tr(msg))
        return Reply(text, private=True)

    async def _cmd_board(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        await self._publish(rt, new=True)
        return Reply("")

    async def _cmd_history(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        rows = await self.store.recent_hands(rt.table.id, int(command.args[0]))
        tr = self._tr(msg)
        if not rows:
            return Reply(tr("reply.no_history"), private=True)
        return Reply("\n".join(f"#{no}: {results.history_line(tr, summary)}" for no, summary in rows), private=True)

    async def _cmd_seed(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        seat = self._seat(rt, msg)
        tr = self._tr(msg)
        if not command.args:
            seed = (await self.fair.player_seeds(rt.table.id)).get(seat.user, "")
            return Reply(tr("fair.seed_now", seed=json.dumps(seed, ensure_ascii=False)) if seed
                         else tr("fair.seed_none", usage=usage_text(tr, "seed")), private=True)
        seed = str(command.args[0])
        await self.fair.set_player_seed(table_id=rt.table.id, user=seat.user, seed=seed)
        return Reply(tr("fair.seed_set", seed=json.dumps(seed, ensure_ascii=False), no=rt.table.hand_no + 1),
                     private=True)

    async def _verify(self, msg: Inbound, command: Command, tr: Translator) -> Reply:
        """'verify N': hand N of the channel's table (the open one, else the last one closed there, as for
        'hand N'), checked as ``python -m engine.verify`` does."""
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

    async def _top(self, msg: Inbound) -> Reply:
        rows = await self.store.leaderboard(_community(msg))
        if not rows:
            return Reply(self._tr(msg)("reply.no_top"), private=True)
        return Reply("\n".join(f"{i}. {name} {total}" for i, (name, total) in enumerate(rows, 1)), private=True)

    async def _cmd_action(self, rt: Runtime, msg: Inbound, command: Command) -> Reply:
        hand = rt.hand
        if hand is None or hand.is_over:
            raise Refusal("refuse.no_hand")
        es = rt.engine_seat(msg.user)
        if es is None:
            raise Refusal("refuse.not_in_hand")
        if command.turn is not None and command.turn != rt.turn:
            raise Refusal("refuse.turn_over", code="turn_over")
        if hand.actor != es:
            raise Refusal("refuse.not_your_turn", name=rt.names[hand.actor] if hand.actor is not None else "?")
        action = Action.from_str(command.name)
        try:
            hand.verify(action, seat=es)
        except IllegalActionError as exc:
            if exc.reason not in _WHY:
                raise
            why, amount = _WHY[exc.reason], exc.amount
            raise Refusal("refuse.illegal", action=lambda tr: command_word(tr, action.value),
                          reason=lambda tr: tr(why, amount=amount),
                          legal=lambda tr: " · ".join(label.lower() for _, label in render.action_options(hand, tr))
                          ) from None
        await self._apply(rt, action, by_timeout=False)
        return _DONE

    # ------------------------------------------------------------------ helpers

    def _seat(self, rt: Runtime, msg: Inbound) -> Seat:
        seat = rt.table.seat_of(msg.user)
        if seat is None:
            raise Refusal("refuse.not_seated")
        return seat

    def _require_owner(self, rt: Runtime, msg: Inbound) -> None:
        if not (msg.admin or msg.user == rt.table.creator):
            raise Refusal("refuse.owner")

    def _tr(self, msg: Inbound) -> Translator:
        """The sender's translator."""
        return self.translator_for(platform=msg.platform, user=msg.user, locale=msg.locale)

    async def _lang(self, msg: Inbound, command: Command) -> Reply:
        """'lang': the sender's language; 'lang ru': choose it (kept over the platform's locale)."""
        if not command.args:
            tr = self._tr(msg)
            return Reply(tr("reply.lang_now", name=LANGUAGE_NAMES[tr.lang]), private=True)
        lang = str(command.args[0])
        async with self.store.atomic() as tx:
            await tx.save_user_lang(platform=msg.platform, user=msg.user, lang=lang, chosen=True)
        self.languages[(msg.platform, msg.user)] = (lang, True)
        return Reply(translator(lang)("reply.lang_set"), private=True)


def _table_language(community_locale: str | None) -> str | None:
    """A new table's language from its server's: Discord gives every server 'en-US' unless a
    community server chose another, so 'en-US' says nothing and the opener's language decides.

    >>> _table_language("ru"), _table_language("pl"), _table_language("en-GB"), _table_language("en-US")
    ('ru', 'pl', 'en', None)
    """
    if community_locale is None or community_locale == "en-US":
        return None
    return language_of(community_locale)


def _community(msg: Inbound) -> str:
    """Wallets are per community; ids are only unique within a platform."""
    return f"{msg.platform}:{msg.community}"


_DONE = Reply("")
"""An action taken: nothing to say to its player alone (the table is told)."""
_TABLE_FREE = frozenset({"help", "rules", "lang", "top", "stats", "new", "hand", "export", "verify", "tourney"})
"""Commands answered without the channel's table (the others need it, and its lock)."""

_WHY = family("why", ("bring_in_no_fold", "bring_in_short", "bring_in_first", "bring_in_posted", "fold_free",
                      "check_facing", "nothing_to_call", "bet_complete", "bet_raise", "nothing_to_complete",
                      "raise_no_bet", "raise_complete", "call_all_in", "capped", "not_reopened", "nobody_to_call"))


def _friendly(message: str) -> str:
    """Engine messages are precise; drop the parts that only matter to developers."""
    return message[0].upper() + message[1:] if message else message
