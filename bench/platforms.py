"""The bot against Discord's and Telegram's rate limits: calls a hand, tables a token, and the bot at twice that.

The real bootstrap (``adapters.run.serve``: the real adapters, discord.py and python-telegram-bot, the real
StudBot on a SQLite file) against loopback fakes that record every call and **enforce the published limits**
(``tests/support/fakes/limited.py``: Discord's global 50 requests/s per token with interaction endpoints
exempt and the per-channel route buckets of 5 per 5 s, 429 + ``retry_after``; Telegram's 30 messages/s
overall, 20 a minute per group, 1 a second per private chat, 429 + ``parameters.retry_after``).

Players act at a human pace: each human presses the passive button (check, call, bring-in) ``PACE`` (6) s
after their turn shows; house bots wait as long. A hand is then about ``HAND_SECONDS`` (77 s: 12 actions
6 s apart and the 5 s before the next deal).

1. **Calls a hand**: tables of 3 humans, 6 humans, and 1 human with 3 house bots play ``--hands`` hands
   each; every call the fake received is sorted by kind and divided by the hands played. Tables a token
   at the limit = the binding limit's rate / (the calls a hand that count against it / ``HAND_SECONDS``).
2. **Twice that load**: ``2 x`` that many tables (the same mix) play for ``--duration`` s; printed: the
   board's lag after a press (p50, p99: until the fake shows the next turn), the 429s the bot received,
   and the messages lost (a press whose board never moved on, a send the bot gave up on).

To fit a 2-core machine the bench runs ``--speed`` times faster than people (every pace, interval and
limit period divided by it; lags are printed multiplied back) and ``--scale`` of the tables (the
per-token budgets, the bot's and the fakes', multiplied by it; per-table limits are untouched).

Run: ``python -m bench.platforms`` (``--help``). The last line: ``tables per token: discord N, telegram M``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import logging
import re
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from fakes.discord_gateway import GUILD_ID  # noqa: E402
from fakes.discord_server import Posted  # noqa: E402
from fakes.limited import DiscordLimits, LimitedBotAPI, LimitedDiscord, TelegramLimits  # noqa: E402
from fakes.telegram_server import BOARD_METHODS, text_of, text_of_call  # noqa: E402

from adapters import run as run_module  # noqa: E402
from bot.core.config import Settings  # noqa: E402

PACE = 6.0
"""Seconds a person takes to act."""
ACTIONS_A_HAND = 12
NEXT_HAND = 5.0
HAND_SECONDS = ACTIONS_A_HAND * PACE + NEXT_HAND
SCENARIOS: tuple[tuple[str, int, int], ...] = (("3 humans", 3, 0), ("6 humans", 6, 0), ("1 human, 3 bots", 1, 3))
DISCORD_GLOBAL = 50.0
TELEGRAM_OVERALL = 30.0
GOALS = {"discord": 300, "telegram": 150}
"""Issue 24's goal: tables a token; the bench runs twice that as its load."""
LOAD = 10**6
"""Hands a table plays at the load: as many as it can in the time given."""
LOST_AFTER = 30.0
"""Human seconds after which a press whose board never moved on counts as lost."""

log = logging.getLogger("bench.platforms")


@dataclass
class Run:
    """What one run of tables on one platform measured."""

    platform: str
    tables: int
    hands: int = 0
    kinds: collections.Counter[str] = field(default_factory=collections.Counter)
    """Calls by kind (every call sent, refused ones too)."""
    binding: int = 0
    """Calls that count against the binding per-token limit."""
    board_bytes: int = 0
    lags: list[float] = field(default_factory=list)
    """Seconds (human time) from a press to the board showing the next turn."""
    card_lead: list[float] = field(default_factory=list)
    """Seconds (human time) from a hand's first private cards to its first board showing the deal."""
    refused: int = 0
    lost: int = 0
    seconds: float = 0.0
    played: float = 0.0
    """Seconds the tables played, added up (human time: multiplied by the speed)."""
    starts: dict[int, float] = field(default_factory=dict)
    """When each table (its channel or chat, and each of its players) began to play: calls before are set-up."""

    def counts(self, key: int | None, at: float) -> bool:
        """Whether a call at ``at`` for ``key`` (a channel, a chat, a user) is part of the hands played."""
        return key is not None and key in self.starts and at >= self.starts[key]

    def per_hand(self, count: float) -> float:
        return count / self.hands if self.hands else 0.0


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class GaveUp(logging.Handler):
    """Counts the sends the adapters log as given up on (warnings and errors of adapters.* and bot.platform)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.samples: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("adapters.", "bot.platform", "telegram.ext")) and record.levelno >= logging.WARNING:
            self.count += 1
            if len(self.samples) < 5:
                self.samples.append(f"{record.name}: {record.getMessage()[:160]}")


@contextlib.contextmanager
def given_up() -> Iterator[GaveUp]:
    handler = GaveUp()
    logging.getLogger().addHandler(handler)
    try:
        yield handler
    finally:
        logging.getLogger().removeHandler(handler)


def settings_for(db: Path, speed: float, **platform: Any) -> Settings:
    db.parent.mkdir(parents=True, exist_ok=True)
    return replace(Settings(), db_path=str(db), bot_delay=PACE / speed, next_hand_delay=NEXT_HAND / speed,
                   turn_timer=max(10, int(120 / speed)), time_bank=0, **platform)


@dataclass
class Opening:
    """At the load, the tables are seated with the limits off (a token's tables open over hours, not all in
    one minute: their set-up is not what is measured); once every table is seated the limits hold (the fake's,
    and the bot's budgets scaled to them) and the tables start, one after another."""

    tables: int
    stagger: float
    """Seconds between two tables' starts: a hand over the tables, so that they are at every moment of their hands
    as a token's tables are (started together, every table would deal at once, again and again)."""
    on_ready: Callable[[], None]
    seated: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    def arrive(self) -> None:
        self.seated += 1
        if self.seated == self.tables:
            self.on_ready()
            self.ready.set()

    async def seat(self, index: int) -> None:
        self.arrive()
        await self.ready.wait()
        await asyncio.sleep(self.stagger * index)


async def guarded(run: Run, delay: float, table: Coroutine[Any, Any, None], opening: Opening | None) -> None:
    """One table's play, after ``delay`` s; a table that fails (its set-up not answered) counts as lost."""
    await asyncio.sleep(delay)
    try:
        await table
    except (AssertionError, TimeoutError) as exc:
        run.lost += 1
        log.error("a table failed: %r", exc)
        if opening is not None and not opening.ready.is_set():
            opening.arrive()


class Budgets:
    """The token budgets the bot makes (``module.Budget`` recorded), to scale them once the tables are seated."""

    def __init__(self, module: Any) -> None:
        self.module, self.made = module, []
        original = self.original = getattr(module, "Budget", None)
        if original is None:
            return
        made = self.made

        class Recorded(original):  # type: ignore[misc, valid-type]
            def __init__(self, *a: Any, **kw: Any) -> None:
                super().__init__(*a, **kw)
                made.append(self)
        module.Budget = Recorded

    def scale(self, factor: float) -> None:
        for budget in self.made:
            budget.configure(rate=budget.rate * factor)

    def restore(self) -> None:
        if self.original is not None:
            self.module.Budget = self.original


# ---------------------------------------------------------------------- Discord

TOKEN_IN = re.compile(r"@(\S+)")
DISCORD_ACTOR = re.compile(r"^(\S+) to act", re.M)
HAND_NO = re.compile(r"Hand #(\d+)")


class BenchDiscord(LimitedDiscord):
    """The limited Discord that also keeps each channel's newest board (the tables poll it)."""

    def __init__(self, limits: DiscordLimits) -> None:
        super().__init__(limits)
        self.latest: dict[int, Posted] = {}
        self.first_dm: dict[tuple[int, int], float] = {}

    def _store(self, channel: int, message_id: int, body: dict[str, Any], *, kind: str,
               files: list[Any] | None = None) -> dict[str, Any]:
        payload = super()._store(channel, message_id, body, kind=kind, files=files)
        if payload["embeds"]:
            self.latest[channel] = self.posted[-1]
        return payload


def discord_token(board: Posted | None) -> str | None:
    if board is None:
        return None
    return next((cid.split("@", 1)[1] for cid in board.custom_ids if "@" in cid), None)


def discord_title(board: Posted) -> str:
    return str(board.embeds[0].get("title", "")) if board.embeds else ""


async def discord_table(fake: BenchDiscord, index: int, humans: int, bots: int, *, speed: float, hands: int,
                        until: float, run: Run, names: dict[int, str], opening: Opening | None = None) -> None:
    channel = 710000000000000000 + index
    fake.add_guild(GUILD_ID, channel)
    users = [20_000_000 + index * 10 + k for k in range(humans)]
    for k, user in enumerate(users):
        fake.user(user, f"P{index}n{k}")
        names[user] = f"P{index}n{k}"
    by_name = {names[u]: u for u in users}

    async def say(user: int, sub: str, **options: int | str) -> None:
        interaction = await fake.slash(user, sub, channel=channel, **options)
        await interaction.answer(timeout=60)

    await say(users[0], "new")
    for user in users:
        await say(user, "join", buy_in=200)
    for k in range(bots):
        await say(users[0], "addbot", name=f"B{index}x{k}")
    if opening is not None:
        await opening.seat(index)
    run.starts[channel] = time.monotonic()
    if hands >= LOAD:  # at the load, each table plays ``until`` seconds from its start
        until += run.starts[channel]
    for user in users:
        run.starts[user] = run.starts[channel]
    await say(users[0], "start")
    last: str | None = None
    pressed: tuple[str, float] | None = None
    while time.monotonic() < until:
        await asyncio.sleep(0.05)
        board = fake.latest.get(channel)
        if board is None:
            continue
        no = HAND_NO.search(board.text)
        if no and int(no.group(1)) > hands:
            break
        token = discord_token(board)
        if pressed is not None and (token != pressed[0] or "showdown" in discord_title(board)):
            run.lags.append((time.monotonic() - pressed[1]) * speed)
            pressed = None
        if pressed is not None and (time.monotonic() - pressed[1]) * speed > LOST_AFTER:
            run.lost += 1
            pressed = None
        if token is None or token == last:
            continue
        who = DISCORD_ACTOR.search(board.text)
        user = by_name.get(who.group(1)) if who else None
        if user is None:
            continue
        last = token
        await asyncio.sleep(PACE / speed)
        choices = {cid.split(":", 1)[1].split("@")[0]: cid for cid in board.custom_ids if "@" in cid}
        choice = next((choices[n] for n in ("check", "call", "bring-in") if n in choices), None)
        if choice is None:
            continue
        pressed = (token, time.monotonic())
        await fake.press(user, choice, message_id=board.message_id)
    run.played += (time.monotonic() - run.starts[channel]) * speed


CARDS_OF_HAND = re.compile(r"Hand #(\d+), your cards")
DEALT = re.compile(r"Hand #(\d+) · (?:[^·\n]+ · )?third street")
"""A deal's first board: its title names the hand, its game (since every board names it, G8), the street."""


def card_leads(cards: dict[tuple[int, int], float], boards: dict[tuple[int, int], float], speed: float) -> list[float]:
    """For each (table, hand): seconds (human time) from its first private cards to its first board of the deal."""
    return [(boards[key] - at) * speed for key, at in cards.items() if key in boards]


def discord_kinds(fake: BenchDiscord, channels: set[int], run: Run, table_of: dict[int, int], speed: float) -> None:
    dm_users = {c: u for u, c in fake.dm_channels.items()}
    cards: dict[tuple[int, int], float] = {}
    for call in fake.calls:
        channel_id = int(call.path.split("/")[2]) if call.path.startswith("/channels/") else 0
        if channel_id in dm_users and call.method == "POST" and call.status < 400:
            dealt = CARDS_OF_HAND.search(str((call.body or {}).get("content", "")))
            key = (table_of.get(dm_users[channel_id], 0), int(dealt.group(1))) if dealt else None
            if key is not None and key not in cards:
                cards[key] = call.at
    boards: dict[tuple[int, int], float] = {}
    for post in fake.posted:
        dealt = DEALT.search(post.text)
        if dealt and post.channel in channels and (post.channel, int(dealt.group(1))) not in boards:
            boards[(post.channel, int(dealt.group(1)))] = post.at
    run.card_lead = card_leads(cards, boards, speed)
    for call in fake.calls:
        path, method = call.path, call.method
        if path.startswith(("/interactions/", "/webhooks/")):
            record = fake.interactions.get(path.split("/")[3])
            if not run.counts(record.user if record else None, call.at):
                continue
            if path.startswith("/i"):
                kind = "interaction callback (exempt)"
            elif getattr(record, "update", False) and method == "PATCH" and path.endswith("@original"):
                kind = "board edit by a press (exempt)"
                run.board_bytes += sum(f.size for f in call.files)
            else:
                kind = "interaction answer (exempt)"
        elif path == "/users/@me/channels":
            if not run.counts(int((call.body or {}).get("recipient_id", 0)), call.at):
                continue
            kind = "DM channel"
        elif path.startswith("/channels/"):
            channel = int(path.split("/")[2])
            if channel in dm_users:
                if not run.counts(dm_users[channel], call.at):
                    continue
                kind = "card DM"
            elif channel not in channels or not run.counts(channel, call.at):
                continue
            elif method == "PATCH":
                kind = "board edit"
            elif isinstance(call.body, dict) and call.body.get("embeds"):
                kind = "board post"
            else:
                kind = "channel line"
            if kind.startswith("board"):
                run.board_bytes += sum(f.size for f in call.files)
        else:
            continue
        run.kinds[kind] += 1
        if "exempt" not in kind:
            run.binding += 1
        if call.status == 429:
            run.refused += 1


async def discord_run(mix: list[tuple[int, int]], *, speed: float, scale: float, hands: int, duration: float,
                      tmp: Path) -> Run:
    from adapters.discord import messenger as discord_messenger
    from adapters.discord.adapter import DiscordAdapter

    fake = BenchDiscord(DiscordLimits(speed=speed, scale=scale))
    await fake.start()
    run = Run("discord", len(mix))
    names: dict[int, str] = {}
    saved = (DiscordAdapter.rate_interval, discord_messenger.WINDOW, getattr(discord_messenger, "GLOBAL_RATE", None))
    DiscordAdapter.rate_interval = saved[0] / speed
    discord_messenger.WINDOW = saved[1] / speed
    if saved[2] is not None:  # the bot's own budget a token, as fast as the fake's (scaled once seated)
        discord_messenger.GLOBAL_RATE = saved[2] * speed
    budgets = Budgets(discord_messenger)
    settings = settings_for(tmp / "discord.db", speed, discord_token="fake-token", discord_api_base=fake.api_base,
                            discord_gateway_url=fake.gateway_url, discord_guild_id=GUILD_ID)
    stop = asyncio.Event()
    with given_up() as gave_up:
        serving = asyncio.create_task(run_module.serve(settings, stop=stop))
        while not fake.identified.is_set():
            if serving.done():
                serving.result()
            await asyncio.sleep(0.05)
        started = time.monotonic()
        until = started + duration if hands < LOAD else duration  # at the load: each table plays `duration` s
        stagger = min(0.5, HAND_SECONDS / speed / len(mix))  # tables open one after the other, over a hand
        opening = None
        if hands >= LOAD:
            def measure() -> None:
                fake.enforcing = True
                budgets.scale(scale)
            fake.enforcing = False
            opening = Opening(len(mix), HAND_SECONDS / speed / len(mix), measure)
        await asyncio.gather(*(guarded(run, stagger * i,
                                       discord_table(fake, i, humans, bots, speed=speed, hands=hands, until=until,
                                                     run=run, names=names, opening=opening), opening)
                               for i, (humans, bots) in enumerate(mix)))
        run.seconds = time.monotonic() - started
        await asyncio.sleep(2 / speed + 1)
        given_up_playing = gave_up.count  # what fails once the bench stops the bot is not the bot's pace
        stop.set()
        await asyncio.wait_for(serving, 60)
    channels = {710000000000000000 + i for i in range(len(mix))}
    for channel in channels:
        board = fake.latest.get(channel)
        no = HAND_NO.search(board.text) if board else None
        if no:
            played = int(no.group(1)) - 1 + (1 if "showdown" in discord_title(board) else 0)  # type: ignore[arg-type]
            run.hands += min(played, hands)
    discord_kinds(fake, channels, run, {u: 710000000000000000 + (u - 20_000_000) // 10 for u in names}, speed)
    run.lost += given_up_playing
    DiscordAdapter.rate_interval, discord_messenger.WINDOW = saved[:2]
    budgets.restore()
    if saved[2] is not None:
        discord_messenger.GLOBAL_RATE = saved[2]
    await fake.stop()
    return run


# ---------------------------------------------------------------------- Telegram

TG_ACTOR = re.compile(r"^→ (\S+)", re.M)


class BenchBotAPI(LimitedBotAPI):
    """The limited Bot API that keeps each group's newest board message id (the tables poll it)."""

    def __init__(self, limits: TelegramLimits) -> None:
        super().__init__(limits)
        self.latest: dict[int, int] = {}

    async def _m_sendphoto(self, p: dict[str, Any]) -> Any:
        result = await super()._m_sendphoto(p)
        self._note(result)
        return result

    async def _m_sendmessage(self, p: dict[str, Any]) -> Any:
        result = await super()._m_sendmessage(p)
        self._note(result)
        return result

    def _note(self, message: dict[str, Any]) -> None:
        chat = int(message["chat"]["id"])
        if chat < 0 and any("callback_data" in b for row in message.get("reply_markup", {}).get("inline_keyboard", [])
                            for b in row):
            self.latest[chat] = int(message["message_id"])


def tg_turn(message: dict[str, Any]) -> str | None:
    for row in message.get("reply_markup", {}).get("inline_keyboard", []):
        for b in row:
            data = b.get("callback_data") or ""
            if data.count("|") == 2:
                return str(data.rsplit("|", 1)[1])
    return None


async def telegram_table(fake: BenchBotAPI, index: int, humans: int, bots: int, *, speed: float, hands: int,
                         until: float, run: Run, opening: Opening | None = None) -> None:
    chat = -1002000000000 - index
    fake.group(chat, f"Table {index}")
    users = [30_000_000 + index * 10 + k for k in range(humans)]
    by_name = {}
    for k, user in enumerate(users):
        fake.user(user, f"P{index}n{k}")
        by_name[f"P{index}n{k}"] = user

    async def say(user: int, text: str, where: int = chat) -> None:
        fake.command(where, user, text)
        await asyncio.sleep(0.5)

    for user in users:
        await say(user, "/start", where=user)
    await say(users[0], "/stud new")
    for user in users:
        await say(user, "/stud join 200")
    for k in range(bots):
        await say(users[0], f"/stud addbot B{index}x{k}")
    if opening is not None:
        await opening.seat(index)
    run.starts[chat] = time.monotonic()
    if hands >= LOAD:
        until += run.starts[chat]
    for user in users:
        run.starts[user] = run.starts[chat]
    await say(users[0], "/stud start")
    last: str | None = None
    pressed: tuple[str, float] | None = None
    while time.monotonic() < until:
        await asyncio.sleep(0.05)
        mid = fake.latest.get(chat)
        if mid is None:
            continue
        board = fake.messages[(chat, mid)]
        text = text_of(board)
        no = HAND_NO.search(text)
        if no and int(no.group(1)) > hands:
            break
        turn = tg_turn(board)
        if pressed is not None and (turn != pressed[0] or "showdown" in text):
            run.lags.append((time.monotonic() - pressed[1]) * speed)
            pressed = None
        if pressed is not None and (time.monotonic() - pressed[1]) * speed > LOST_AFTER:
            run.lost += 1
            pressed = None
        if turn is None or turn == last:
            continue
        who = TG_ACTOR.search(text)
        user = by_name.get(who.group(1)) if who else None
        if user is None:
            continue
        last = turn
        await asyncio.sleep(PACE / speed)
        labels = [b["text"] for row in board.get("reply_markup", {}).get("inline_keyboard", []) for b in row
                  if "callback_data" in b]
        label = next((lb for p in ("Check", "Call", "Bring-in") for lb in labels if lb.startswith(p)), None)
        if label is None:
            continue
        pressed = (turn, time.monotonic())
        fake.press(chat, mid, user, label=label)
    run.played += (time.monotonic() - run.starts[chat]) * speed


def telegram_kinds(fake: BenchBotAPI, chats: set[int], run: Run, *, edits_count: bool, speed: float) -> None:
    cards: dict[tuple[int, int], float] = {}
    boards: dict[tuple[int, int], float] = {}
    for call in fake.calls:
        if call.status >= 400 or call.method not in BOARD_METHODS:
            continue
        chat = int(call.params.get("chat_id", 0) or 0)
        text = text_of_call(call)
        if chat > 0 and (dealt := CARDS_OF_HAND.search(text)):
            cards.setdefault((-1002000000000 - (chat - 30_000_000) // 10, int(dealt.group(1))), call.t)
        elif chat in chats and (dealt := DEALT.search(text)):
            boards.setdefault((chat, int(dealt.group(1))), call.t)
    run.card_lead = card_leads(cards, boards, speed)
    for call in fake.calls:
        method = call.method
        chat = call.params.get("chat_id")
        try:
            chat_id = int(chat) if chat is not None else None
        except (TypeError, ValueError):
            chat_id = None
        if method in ("getUpdates", "getMe", "setMyCommands", "deleteWebhook", "getMyCommands"):
            continue
        if method == "answerCallbackQuery":
            if call.t < min(run.starts.values(), default=0.0):
                continue
            kind = "answerCallbackQuery"
        elif not run.counts(chat_id, call.t):
            continue
        elif chat_id is not None and chat_id > 0:
            kind = "card (private)" if method in ("sendPhoto", "sendMessage") else f"private {method}"
        elif chat_id is not None and chat_id in chats:
            if method.startswith("edit"):
                kind = "board edit"
            elif "reply_markup" in call.params and "callback_data" in str(call.params.get("reply_markup")):
                kind = "board post"
            elif method.startswith("send"):
                kind = "group line"
            else:
                kind = f"group {method}"
        else:
            continue
        run.kinds[kind] += 1
        if method.startswith("send") or (edits_count and method.startswith("edit")):
            run.binding += 1
        if call.status == 429:
            run.refused += 1


async def telegram_run(mix: list[tuple[int, int]], *, speed: float, scale: float, hands: int, duration: float,
                       tmp: Path, edits_count: bool) -> Run:
    from adapters.telegram.adapter import TelegramAdapter

    fake = BenchBotAPI(TelegramLimits(speed=speed, scale=scale))
    await fake.start()
    run = Run("telegram", len(mix))
    saved = (TelegramAdapter.rate_interval, TelegramAdapter.group_rate, TelegramAdapter.poll_timeout)
    TelegramAdapter.rate_interval = saved[0] / speed
    TelegramAdapter.group_rate = (saved[1][0], saved[1][1] / speed)
    TelegramAdapter.poll_timeout = 1
    overall = getattr(TelegramAdapter, "overall_rate", None)
    limiters: list[Any] = []
    budgets: Budgets | None = None
    if overall is not None:  # the bot's own budget a token, as fast as the fake's (scaled once seated)
        TelegramAdapter.overall_rate = overall * speed
        from adapters.telegram import limiter as tg_limiter
        budgets = Budgets(tg_limiter)
        import adapters.telegram.adapter as tg_adapter
        stud_limiter = tg_adapter.StudRateLimiter

        class Recorded(stud_limiter):  # type: ignore[misc, valid-type]
            def __init__(self, **kw: Any) -> None:
                super().__init__(**kw)
                limiters.append((self, 0.0))
        tg_adapter.StudRateLimiter = Recorded  # type: ignore[misc]
    else:  # before issue 24: PTB's AIORateLimiter, 30 a second (the fake's overall rate is scaled: so is it)
        import adapters.telegram.adapter as tg_adapter
        original = tg_adapter.AIORateLimiter  # type: ignore[attr-defined]

        def scaled(**kw: Any) -> Any:
            kw["overall_max_rate"] = kw["overall_max_rate"] * speed
            limiter = original(**kw)
            limiters.append((limiter, kw["overall_max_rate"]))
            return limiter
        tg_adapter.AIORateLimiter = scaled  # type: ignore[attr-defined]

    def measure() -> None:
        fake.enforcing = True
        if budgets is not None:
            budgets.scale(scale)
        from aiolimiter import AsyncLimiter
        for limiter, rate in limiters:
            if hasattr(limiter, "forget_chats"):  # the groups' windows start with the fake's: set-up is not counted
                limiter.forget_chats()
            else:
                limiter._base_limiter = AsyncLimiter(rate * scale, 1)
    settings = settings_for(tmp / "telegram.db", speed, telegram_token=fake.token, telegram_base_url=fake.base_url)
    stop = asyncio.Event()
    with given_up() as gave_up:
        serving = asyncio.create_task(run_module.serve(settings, stop=stop))
        await fake.wait_for(lambda: fake.sent("getUpdates", ok=False) or serving.done(), timeout=30, what="polling")
        if serving.done():
            serving.result()
        started = time.monotonic()
        until = started + duration if hands < LOAD else duration  # at the load: each table plays `duration` s
        stagger = min(0.5, HAND_SECONDS / speed / len(mix))
        opening = None
        if hands >= LOAD:
            fake.enforcing = False
            opening = Opening(len(mix), HAND_SECONDS / speed / len(mix), measure)
        await asyncio.gather(*(guarded(run, stagger * i,
                                       telegram_table(fake, i, humans, bots, speed=speed, hands=hands, until=until,
                                                      run=run, opening=opening), opening)
                               for i, (humans, bots) in enumerate(mix)))
        run.seconds = time.monotonic() - started
        await asyncio.sleep(2 / speed + 1)
        given_up_playing = gave_up.count  # what fails once the bench stops the bot is not the bot's pace
        stop.set()
        await asyncio.wait_for(serving, 60)
    chats = {-1002000000000 - i for i in range(len(mix))}
    for chat in chats:
        mid = fake.latest.get(chat)
        if mid is None:
            continue
        text = text_of(fake.messages[(chat, mid)])
        no = HAND_NO.search(text)
        if no:
            run.hands += min(int(no.group(1)) - 1 + (1 if "showdown" in text else 0), hands)
    telegram_kinds(fake, chats, run, edits_count=edits_count, speed=speed)
    run.lost += given_up_playing
    TelegramAdapter.rate_interval, TelegramAdapter.group_rate, TelegramAdapter.poll_timeout = saved
    if overall is not None:
        TelegramAdapter.overall_rate = overall
    if budgets is not None:
        budgets.restore()
        tg_adapter.StudRateLimiter = stud_limiter  # type: ignore[misc]
    if overall is None:
        tg_adapter.AIORateLimiter = original  # type: ignore[attr-defined]
    await fake.close()
    return run


# ---------------------------------------------------------------------- the report


def mix_of(tables: int) -> list[tuple[int, int]]:
    return [(SCENARIOS[i % len(SCENARIOS)][1], SCENARIOS[i % len(SCENARIOS)][2]) for i in range(tables)]


def per_token(run: Run, limit: float) -> int:
    """Tables a token at the limit: its rate over what one table sends against it a second (as measured: the calls
    over the seconds the tables played, at a human pace)."""
    per_second = run.binding / run.played if run.played else 0.0
    return int(limit / per_second) if per_second else 0


def print_calls(run: Run, limit: float, what: str) -> int:
    tables = per_token(run, limit)
    print(f"{run.platform}: {run.tables} tables, {run.hands} hands in {run.seconds:.0f} s")
    for kind, count in sorted(run.kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:<32} {run.per_hand(count):6.1f} a hand")
    print(f"  against {what:<24} {run.per_hand(run.binding):6.1f} a hand; {run.binding / max(run.played, 1):.3f}/s "
          f"a table ({run.played / max(run.hands, 1):.0f} s a hand) -> {tables} tables a token")
    if run.board_bytes:
        print(f"  board pictures uploaded          {run.per_hand(run.board_bytes) / 1e6:6.2f} MB a hand")
    if run.card_lead:
        print(f"  a hand's first board after its private cards: p50 {quantile(run.card_lead, 0.5):+.2f} s, "
              f"max {max(run.card_lead):+.2f} s ({len(run.card_lead)} deals; + is after)")
    return tables


def print_load(run: Run, speed: float) -> None:
    print(f"  at {run.tables / SCALE_NOTE[0]:.0f} tables a token ({run.tables} tables, x{1 / SCALE_NOTE[0]:.0f} "
          f"the budget, x{speed:g} the pace): "
          f"board lag p50 {quantile(run.lags, 0.5):.2f} s, p99 {quantile(run.lags, 0.99):.2f} s "
          f"({len(run.lags)} presses), 429s {run.refused}, lost {run.lost}, hands {run.hands}")


SCALE_NOTE = [1.0]


@dataclass
class Measured:
    """One platform's figures: the calls counted, the tables a token at the limit, the run at twice that."""

    counted: Run
    tables: int
    load: Run | None = None


async def main_async(args: argparse.Namespace) -> dict[str, Measured]:
    SCALE_NOTE[0] = args.scale
    results: dict[str, Measured] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        mix = mix_of(len(SCENARIOS) * args.per_scenario)
        print(f"speed x{args.speed:g} (a person acts every {PACE / args.speed:.2f} s), "
              f"scale {args.scale:g} of a token's tables; a hand is {HAND_SECONDS:.0f} s at a human pace")
        for platform in args.platforms:
            if not args.count:
                first, tables = Run(platform, 0), 0
            elif platform == "discord":
                first = await discord_run(mix, speed=args.speed, scale=1.0, hands=args.hands, duration=args.calls_for,
                                          tmp=tmp / "d1")
                tables = print_calls(first, DISCORD_GLOBAL, "the global 50/s")
            else:
                first = await telegram_run(mix, speed=args.speed, scale=1.0, hands=args.hands,
                                           duration=args.calls_for, tmp=tmp / "t1", edits_count=args.edits_count)
                tables = print_calls(first, TELEGRAM_OVERALL, "30 messages/s")
                edits = sum(n for kind, n in first.kinds.items() if kind == "board edit")
                if not args.edits_count and first.played:
                    both = (first.binding + edits) / first.played
                    print(f"  (were edits counted too, as PTB's AIORateLimiter counts them: {both:.3f}/s a table -> "
                          f"{int(TELEGRAM_OVERALL / both)} tables a token)")
            if first.refused:
                print(f"  429s while counting: {first.refused}")
            results[platform] = Measured(first, tables)
            if args.load:
                per_token = args.load_tables or 2 * GOALS[platform]
                load = max(1, round(per_token * args.scale))
                if platform == "discord":
                    second = await discord_run(mix_of(load), speed=args.load_speed, scale=args.scale, hands=LOAD,
                                               duration=args.duration, tmp=tmp / "d2")
                else:
                    second = await telegram_run(mix_of(load), speed=args.load_speed, scale=args.scale, hands=LOAD,
                                                duration=args.duration, tmp=tmp / "t2", edits_count=args.edits_count)
                print_load(second, args.load_speed)
                results[platform].load = second
    return results


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.platforms", description=__doc__.split("\n\n")[0])
    p.add_argument("--speed", type=float, default=3.0, help="times faster than people, counting calls (3)")
    p.add_argument("--load-speed", type=float, default=1.0, help="times faster than people at twice the load "
                   "(1: this machine's processor must keep up with tables x speed)")
    p.add_argument("--scale", type=float, default=0.1, help="share of a token's tables at twice the load (0.1: "
                   "much less and one table's burst, six private cards at a deal, is large against the budget)")
    p.add_argument("--hands", type=int, default=5, help="hands a table plays while counting calls (5)")
    p.add_argument("--per-scenario", type=int, default=2, help="tables of each kind while counting calls (2)")
    p.add_argument("--calls-for", type=float, default=400.0, help="at most this many seconds counting calls")
    p.add_argument("--duration", type=float, default=90.0, help="seconds each table plays at twice the load (90)")
    p.add_argument("--no-load", dest="load", action="store_false", help="only count the calls")
    p.add_argument("--no-count", dest="count", action="store_false", help="only run the load")
    p.add_argument("--load-tables", type=int, default=0, metavar="N",
                   help="tables a token at the load (default: twice the goal, 600 on Discord, 300 on Telegram)")
    p.add_argument("--edits-count", action="store_true",
                   help="Telegram's edits count against the 30/s too (the FAQ does not say so)")
    p.add_argument("--platforms", nargs="+", default=["discord", "telegram"], choices=["discord", "telegram"])
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    logging.basicConfig(level=logging.ERROR)
    results = asyncio.run(main_async(args))
    discord, telegram = (results[p].tables if p in results else 0 for p in ("discord", "telegram"))
    print(f"tables per token: discord {discord}, telegram {telegram}")


if __name__ == "__main__":
    main()

