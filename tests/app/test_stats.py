"""Player stats: each hand's rows (VPIP, showdowns, halves, scoops, net, biggest pot) with exact
numbers from hands built with explicit cards; the rows written when a hand is settled; the
migration that backfills them from stored hand files; ``stats`` and ``top net`` over periods on a
manual clock; bad input refused; the chart in every language; the benchmark script's smoke run."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from backends import snapshot
from helpers import make_hand
from PIL import Image
from store_fixtures import drop_tables_after
from test_console import Table
from test_results import (
    ALL_IN_STACKS,
    ALL_INS,
    RAZZ_DOWN,
    SCOOP,
    SCOOP_NO_LOW,
    SPLIT,
    STUD_DOWN,
    game_showdown,
    showdown,
)

from adapters.console.chat import ConsoleMessenger
from bot.app import StudBot
from bot.bootstrap import build_bot
from bot.chips import wallets as chip_wallets
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.core.errors import UsageError
from bot.core.i18n import Translator, translator
from bot.core.model import HandSetup, Player
from bot.core.ports import Inbound
from bot.schema import MIGRATIONS
from bot.stats import rows as stats_rows
from bot.stats.answers import stats_text, tourney_text
from bot.stats.book import PlayerStats, StatsBook, TourneyStats
from bot.stats.chart import net_png
from bot.stats.rows import hand_lines, record_hand
from bot.store import Store, open_sqlite
from bot.text import render
from bot.text.grammar import parse
from engine import Hand, Stakes
from engine.games import Game
from engine.handfile import HandFile, replay_hand

# The tests of the store run on both backends (store_backend); the pure ones once.

ROOT = Path(__file__).resolve().parents[2]
EN, RU, PL = translator("en"), translator("ru"), translator("pl")
LANGS = pytest.mark.parametrize("tr", [EN, RU, PL], ids=["en", "ru", "pl"])
COMMUNITY = "console:c"
DAY = 86_400.0
T0 = 1_700_000_000.0


def _down(hand: Hand) -> Hand:
    """Check (or call) every street to the end."""
    while not hand.is_over:
        hand.act("check" if hand.can("check") else "call")
    return hand


def _split_completed() -> Hand:
    """ann, who must bring in, completes instead; bob calls; both check down: bob's queens full
    take the high, ann's wheel the low of a 12-chip pot."""
    hand = make_hand(SPLIT)
    hand.act("complete")
    hand.act("call")
    return _down(hand)


def scripted_hands() -> list[Hand]:
    """Five hands of ann and bob (with cat and dan in the first)."""
    hands = [showdown(ALL_INS, stacks=ALL_IN_STACKS, aggressor="cat"), make_hand(SPLIT),
             showdown(SCOOP_NO_LOW), showdown(SCOOP), _split_completed()]
    hands[1].act("bring-in")  # ann brings in, bob folds
    hands[1].act("fold")
    return hands


def _lines(hand: Hand) -> dict[str, tuple[object, ...]]:
    return {hand.names[x.seat]: (x.vpip, x.showdown, x.won_showdown, x.high_halves, x.low_halves, x.scoops, x.net,
                                 x.won) for x in hand_lines(hand)}


def test_each_hands_lines_are_exact() -> None:
    all_ins, folded, scoop_no_low, scoop, split = scripted_hands()
    # bob brings in (3d), cat completes, dan, ann and bob call: all four chose to put chips in.
    # Main pot 40: high ann, low bob; side pot 1 45: bob scoops; side pot 2 32: high cat, low dan.
    assert _lines(all_ins) == {"ann": (True, True, True, 1, 0, 0, 10, 20),
                               "bob": (True, True, True, 1, 2, 1, 40, 65),
                               "cat": (True, True, True, 1, 0, 0, -25, 16),
                               "dan": (True, True, True, 0, 1, 0, -25, 16)}
    # the bring-in is forced, a fold is no choice to put chips in; no showdown
    assert _lines(folded) == {"ann": (False, False, False, 0, 0, 0, 1, 2), "bob": (False, False, False, 0, 0, 0, -1, 0)}
    # bob brings in, ann calls; ann's kings full take the whole pot with no low: a scoop
    assert _lines(scoop_no_low) == {"ann": (True, True, True, 1, 0, 1, 3, 6),
                                    "bob": (False, True, False, 0, 0, 0, -3, 0)}
    # ann brings in, bob calls; ann's steel wheel takes both halves: a scoop
    assert _lines(scoop) == {"ann": (False, True, True, 1, 1, 1, 3, 6), "bob": (True, True, False, 0, 0, 0, -3, 0)}
    # the bring-in seat completing is voluntary; a split pot is one half each, no scoop
    assert _lines(split) == {"ann": (True, True, True, 0, 1, 0, 0, 6), "bob": (True, True, True, 1, 0, 0, 0, 6)}


async def store_hands(store: Store, hands: Sequence[Hand], *, at: Sequence[float] | None = None,
                      community: str = COMMUNITY, users: Mapping[str, str] | None = None) -> None:
    """Settle ``hands`` into the store as the dealer does: a hand row, then its players' rows (user ``users[name]``,
    else 'u-<name>'; display name capitalized), with wallets for their names."""

    def user(name: str) -> str:
        return users[name] if users is not None else f"u-{name}"

    async with store.atomic() as tx:
        table_id = await tx.create_table(platform="console", community=community, channel="c", creator="u-ann",
                                         stakes=Stakes(), timer=30, now=T0)
        names = sorted({n for hand in hands for n in hand.names})
        for name in names:
            await chip_wallets.ensure_wallet(tx, community=community, user=user(name), name=name.capitalize(),
                                             balance=1000,
                                   now=T0)
        for i, hand in enumerate(hands):
            players = [Player(s, user(n), n.capitalize(), hand.starting_stacks[s]) for s, n in enumerate(hand.names)]
            setup = HandSetup(hand_no=i + 1, stakes=hand.stakes, players=players, deck=[], game=hand.game)
            hand_id = await tx.begin_hand(table_id=table_id, setup=setup, now=T0)
            now = at[i] if at is not None else T0 + i
            await tx.finish_hand(hand_id=hand_id, hand_file="{}", summary="", now=now)
            await record_hand(tx, hand=hand, hand_id=hand_id, community=community, players=players, now=now)
        await tx.close_table(table_id)


def _bot(store: Store, clock: ManualClock) -> StudBot:
    return build_bot(Settings(), store=store, messenger=ConsoleMessenger(lambda line: None), clock=clock,
                     rng=random.Random(1))


def _ask(user: str, text: str, *, platform: str = "console", locale: str = "en") -> Inbound:
    return Inbound(platform=platform, community="c", channel="c", user=f"u-{user}", name=user.capitalize(), text=text,
                   locale=locale)


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_stats_after_scripted_hands_are_exact(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        await store_hands(store, scripted_hands())
        book = StatsBook(store)
        bob, ann = await book.player(COMMUNITY, "u-bob"), await book.player(COMMUNITY, "u-ann")
        # bob: VPIP in the all-in hand, the scoop hand (a call) and the split (a call); 4 showdowns, won 2
        assert stats_text(bob, name="Bob", tr=EN) == (
            "Stats of Bob here\nHands dealt: 5\nVPIP (chips put in by choice on third street): 3 (60%)\n"
            "Showdowns: 4 seen, 2 won (50%)\nPots won at showdown: high 2, low 2; scooped 1\nNet: +33 chips\n"
            "Biggest pot won: 65 chips")
        assert (ann.hands, ann.vpip, ann.showdowns, ann.won_showdowns, ann.high_halves, ann.low_halves, ann.scoops,
                ann.net, ann.biggest_pot) == (5, 3, 4, 4, 3, 2, 2, 17, 20)
        cat = await book.player(COMMUNITY, "u-cat")
        assert (cat.hands, cat.vpip, cat.net, cat.biggest_pot) == (1, 1, -25, 16)
        assert await book.net_series(COMMUNITY, "u-bob") == [40, -1, -3, -3, 0]
        # the same through the bot, privately, in the asker's language; another player's by name (any case)
        clock = ManualClock(T0 + 10)
        bot = _bot(store, clock)
        mine = await bot.handle(_ask("ann", "stats"))
        assert mine.private and mine.ok and mine.image is None  # the console: text only
        assert mine.text.startswith("Stats of Ann here\nHands dealt: 5\n") and "Net: +17 chips" in mine.text
        theirs = await bot.handle(_ask("ann", "stats BOB", locale="ru"))
        assert theirs.text == stats_text(bob, name="Bob", tr=RU)
        assert theirs.text.splitlines()[0] == "Статистика игрока Bob в этом сообществе"
        assert f"Итог: +{render.chips(33, RU)}" in theirs.text
        polish = await bot.handle(_ask("ann", "statystyki bob", locale="pl"))
        assert "Największa wygrana pula: 65 " in polish.text and "Rozdania: 5" in polish.text
    finally:
        await store.close()


def test_item12_percentages_round_half_up() -> None:
    """Issue 19 item 12: 26 of 80 is 32.5%, said 32% (Python's round() rounds half to even): 33%."""
    stats = PlayerStats(hands=80, vpip=26, showdowns=8, won_showdowns=1, high_halves=1, low_halves=0, scoops=0,
                        net=0, biggest_pot=0)
    text = stats_text(stats, name="Ann", tr=EN)
    assert "VPIP (chips put in by choice on third street): 26 (33%)" in text
    assert "Showdowns: 8 seen, 1 won (13%)" in text  # 12.5%


@LANGS
def test_item11_a_players_sit_and_go_line_in_every_language(tr: Translator) -> None:
    line = tourney_text(TourneyStats(played=3, places=((1, 2), (3, 1)), prizes=1300, buyins=300), tr=tr)
    assert line == {
        "en": "Sit-and-gos played: 3; places: 1st ×2, 3rd ×1; prizes won: 1300 chips; buy-ins paid: 300 chips",
        "ru": f"Турниров сыграно: 3; места: 1-е ×2, 3-е ×1; выиграно призов: {render.chips(1300, RU)}; "
              f"заплачено бай-инов: {render.chips(300, RU)}",
        "pl": f"Rozegrane turnieje: 3; miejsca: 1. ×2, 3. ×1; wygrane nagrody: {render.chips(1300, PL)}; "
              f"zapłacone wpisowe: {render.chips(300, PL)}"}[tr.lang]


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_redteam_stats_of_a_name_with_a_control_character_gets_the_usage(tmp_path: Path) -> None:
    """No shown name holds a control character (names are cleaned); 'stats a<NUL>b' reached PostgreSQL,
    which refuses a NUL in text, and the asker got the apology of a bug."""
    with pytest.raises(UsageError):
        parse("stats a\x00b")
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        bot = _bot(store, ManualClock(T0))
        for text in ("stats a\x00b", "stats \x00", "stats Bob\x07"):
            reply = await bot.handle(_ask("ann", text))
            assert not reply.ok and "stats [stud8|stud|razz] [name]" in reply.text, (text, reply.text)
    finally:
        await store.close()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_redteam_stats_finds_a_name_in_any_case_beyond_ascii(tmp_path: Path) -> None:
    """'stats ёжик' finds Ёжик, 'stats ZOË' Zoë, on SQLite too (whose lower() folds only ASCII
    letters): the answer is the same on both backends."""
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        async with store.atomic() as tx:
            for user, name in (("u-hedgehog", "Ёжик"), ("u-zoe", "Zoë"), ("u-bob", "Bob")):
                await chip_wallets.ensure_wallet(tx, community=COMMUNITY, user=user, name=name, balance=1000, now=T0)
        book = StatsBook(store)
        for asked, user in (("ёжик", "u-hedgehog"), ("ЁЖИК", "u-hedgehog"), ("Ёжик", "u-hedgehog"),
                            ("ZOË", "u-zoe"), ("bob", "u-bob")):
            found = await book.find(COMMUNITY, asked)
            assert found is not None and found.user == user, asked
        assert await book.find(COMMUNITY, "ёж") is None
    finally:
        await store.close()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_item11_stats_keep_cash_hands_and_sit_and_gos_apart(tmp_path: Path) -> None:
    """The cash stats as before, then the sit-and-go line: finished ones only (a cancelled one was
    refunded, a running one is not over), places best first, prizes and buy-ins in wallet chips."""
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        await store_hands(store, scripted_hands())
        async with store.atomic() as tx:
            table_id = await tx.create_table(platform="console", community=COMMUNITY, channel="sng", creator="u-bob",
                                             stakes=Stakes(), timer=30, now=T0)
            for tid, status, place, prize in ((1, "finished", 3, 0), (2, "finished", 1, 130),
                                              (3, "cancelled", None, None), (4, "running", None, None)):
                await tx.execute(
                    "INSERT INTO tournaments (id, table_id, platform, community, channel, creator, status, seats, "
                    "stack, buyin, unit, length, pace, payout, created_at) VALUES (?, ?, 'console', ?, 'sng', 'u-bob', "
                    "?, 2, 1500, 100, 'hands', 2, 'turbo', 'winner', ?)", (tid, table_id, COMMUNITY, status, T0))
                await tx.execute("INSERT INTO tourney_players (tournament_id, user_id, name, seq, place, prize) "
                                 "VALUES (?, 'u-bob', 'Bob', 1, ?, ?)", (tid, place, prize))
        bob = await StatsBook(store).player(COMMUNITY, "u-bob")
        reply = await _bot(store, ManualClock(T0 + 10)).handle(_ask("ann", "stats bob"))
        assert reply.text == stats_text(bob, name="Bob", tr=EN) + (
            "\nSit-and-gos played: 2; places: 1st ×1, 3rd ×1; prizes won: 130 chips; buy-ins paid: 200 chips")
    finally:
        await store.close()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_top_net_over_a_day_a_week_and_all_time_on_a_manual_clock(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        hands = scripted_hands()[2:]  # ann +3, ann +3, nobody 0 (ann and bob)
        await store_hands(store, [hands[0], hands[1], hands[2]], at=[T0 - 8 * DAY, T0 - 3 * DAY, T0 - 3600])
        await store_hands(store, scripted_hands()[:1], at=[T0 - 2 * 3600])  # bob +40, ann +10, cat/dan -25
        clock = ManualClock(T0)
        bot = _bot(store, clock)

        async def top(period: str) -> str:
            reply = await bot.handle(_ask("ann", f"top net {period}".strip()))
            assert reply.private and reply.ok
            return reply.text

        assert await top("day") == ("Net winnings, last 24 hours:\n1. Bob +40 chips\n2. Ann +10 chips\n"
                                    "3. Cat -25 chips\n4. Dan -25 chips")
        assert await top("week") == ("Net winnings, last 7 days:\n1. Bob +37 chips\n2. Ann +13 chips\n"
                                     "3. Cat -25 chips\n4. Dan -25 chips")
        assert await top("all") == await top("") == ("Net winnings, all time:\n1. Bob +34 chips\n2. Ann +16 chips\n"
                                                      "3. Cat -25 chips\n4. Dan -25 chips")
        await clock.advance(DAY)  # a day later: nothing in the last 24 hours; the week loses nothing yet
        assert await top("day") == "No hands were played here in that period."
        assert (await top("week")).splitlines()[1] == "1. Bob +37 chips"
        await clock.advance(3.5 * DAY)  # the hand 3 days old then is 7.5 days old now: out of the week
        assert (await top("week")).splitlines()[1:3] == ["1. Bob +40 chips", "2. Ann +10 chips"]
        russian = await bot.handle(_ask("ann", "top net all", locale="ru"))
        assert russian.text.splitlines()[0] == "Чистый выигрыш за всё время:"
        wallets = await bot.handle(_ask("ann", "top"))  # by wallet, as before
        assert wallets.text.splitlines()[0] == "1. Ann 1000"
    finally:
        await store.close()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_bad_input_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    for text in ("top foo", "top net month", "top net day week", "top week", "stats " + "x" * 65):
        with pytest.raises(UsageError):
            parse(text)
    assert parse("top NET Week").args == ("net", "week") and parse("stats  Bob  Smith").args == ("Bob Smith",)
    db = tmp_path / "s.db"
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        await store_hands(store, scripted_hands()[:2])

        async def dump() -> dict[str, list[tuple[object, ...]]]:  # not the languages it remembers of whoever writes
            return {table: rows for table, rows in (await snapshot(db)).items() if table != "user_langs"}

        before = await dump()
        assert before["hand_players"], "the snapshot sees the database the bot writes"
        bot = _bot(store, ManualClock(T0))
        for text in ("top foo", "top net month", "stats " + "x" * 65):
            reply = await bot.handle(_ask("ann", text))
            assert not reply.ok and reply.private and ("top [net [day|week|all]]" in reply.text
                                                       or "stats [stud8|stud|razz] [name]" in reply.text), reply.text
        nobody = await bot.handle(_ask("ann", "stats Zed"))
        assert (nobody.ok, nobody.text) == (False, "Nobody called Zed plays here.")
        newcomer = await bot.handle(_ask("eve", "stats"))
        assert newcomer.ok and newcomer.text == "Eve has not been dealt a hand here yet."
        assert await dump() == before
    finally:
        await store.close()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_the_settlement_writes_each_players_row(tmp_path: Path) -> None:
    """Hands dealt by the bot: one row per player per settled hand, equal to the replay of its stored hand
    file, nets adding up to zero; 'stats' answers from them."""
    db = tmp_path / "t.db"
    async with Table(db, seed=4) as t:
        await t.say("ann", "new")
        for user in ("ann", "bob", "cat"):
            await t.say(user, "join")
        await t.start()
        await t.call_down()
        await t.wait(t.settings.next_hand_delay)
        await t.call_down()
        stored = await t.store.fetch("SELECT h.id, h.setup, h.hand_file FROM hands h WHERE status = 'done'")
        assert len(stored) == 2
        for row in stored:
            hand = replay_hand(HandFile.from_json(row["hand_file"]))
            users = [p[1] for p in json.loads(row["setup"])["players"]]
            got = await t.store.fetch("SELECT user_id, vpip, showdown, won_showdown, high_halves, low_halves, scoops, "
                                      "net, won FROM hand_players WHERE hand_id = ?", (row["id"],))
            want = {users[x.seat]: (int(x.vpip), int(x.showdown), int(x.won_showdown), x.high_halves, x.low_halves,
                                    x.scoops, x.net, x.won) for x in hand_lines(hand)}
            assert {r["user_id"]: tuple(r)[1:] for r in got} == want
            assert sum(v[6] for v in want.values()) == 0
        reply = await t.say("ann", "stats")
        assert "Hands dealt: 2" in reply


async def _played(db: Path) -> list[tuple[object, ...]]:
    async with Table(db, seed=5) as t:
        await t.say("ann", "new")
        for user in ("ann", "bob"):
            await t.say(user, "join")
        await t.start()
        for _ in range(3):
            await t.call_down()
            await t.wait(t.settings.next_hand_delay)
        return [tuple(r) for r in await t.store.fetch("SELECT * FROM hand_players ORDER BY hand_id, user_id")]


@pytest.mark.sqlite_only(reason="takes the file back a version with sqlite3 and reads sqlite_master (both backends: "
                                 "test_store_backends.py::test_a_previous_version_migrates_with_a_hand_in_progress)")
@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_the_migration_backfills_rows_for_hands_stored_before_it(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats_rows, "BACKFILL_PAGE", 2)  # several pages
    db = tmp_path / "old.db"
    written = await _played(db)
    assert len(written) >= 6
    before = MIGRATIONS.index(stats_rows.migrate)  # what the build before the stats left: the schema before it
    later = drop_tables_after(before + 1)  # and before the migrations that came after it
    with sqlite3.connect(db) as con:
        con.executescript(f"{later} DROP TABLE hand_players; PRAGMA user_version = {before};")
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        backfilled = [tuple(r) for r in await store.fetch("SELECT * FROM hand_players ORDER BY hand_id, user_id")]
        assert backfilled == written
        indexes = {r[0] for r in await store.fetch("SELECT name FROM sqlite_master WHERE type = 'index' "
                                                   "AND tbl_name = 'hand_players' AND sql IS NOT NULL")}
        assert indexes == {"hand_players_player", "hand_players_period", "hand_players_game"}
    finally:
        await store.close()
    # a hand file the engine cannot replay is left out (and logged); the others are backfilled
    with sqlite3.connect(db) as con:
        con.executescript(f"{later} DROP TABLE hand_players; DROP INDEX IF EXISTS hand_players_player; "
                          f"DROP INDEX IF EXISTS hand_players_period; PRAGMA user_version = {before};")
        first = con.execute("SELECT MIN(id) FROM hands WHERE status = 'done'").fetchone()[0]
        con.execute("UPDATE hands SET hand_file = '{\"broken\": 1}' WHERE id = ?", (first,))
    caplog.set_level("ERROR")
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        kept = [tuple(r) for r in await store.fetch("SELECT * FROM hand_players ORDER BY hand_id, user_id")]
        assert kept == [r for r in written if r[0] != first]
        assert f"stats: hand {first} cannot be replayed" in caplog.text
    finally:
        await store.close()


@LANGS
def test_the_chart_renders_in_each_language(tr: Translator) -> None:
    rng = random.Random(7)
    for nets in ([], [5], [rng.randint(-40, 60) for _ in range(5000)]):
        png = net_png(nets, name="Аня Ż", tr=tr)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        with Image.open(io.BytesIO(png)) as img:
            assert img.size == (960, 480)
            assert len(img.convert("RGB").getcolors(1 << 16) or ()) > 5  # drawn, not blank
    assert net_png([1, 2], name="a", tr=tr) != net_png([1, -2], name="a", tr=tr)


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_stats_come_with_a_picture_on_image_tables_only(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS)
    try:
        await store_hands(store, scripted_hands())
        await store.execute("UPDATE tables SET community = 'discord:c'")
        await store.execute("UPDATE hand_players SET community = 'discord:c'")
        await store.execute("UPDATE wallets SET community = 'discord:c'")
        bot = _bot(store, ManualClock(T0))
        for lang in ("en", "ru", "pl"):
            reply = await bot.handle(_ask("bob", "stats", platform="discord", locale=lang))
            assert reply.ok and reply.image is not None and reply.image[:4] == b"\x89PNG"
            assert reply.text == stats_text(await StatsBook(store).player("discord:c", "u-bob"), name="Bob",
                                            tr=translator(lang))
        await bot.handle(_ask("ann", "new", platform="discord"))
        await bot.handle(_ask("ann", "config view=text", platform="discord"))
        text_table = await bot.handle(_ask("bob", "stats", platform="discord"))
        assert text_table.ok and text_table.image is None and "Hands dealt: 5" in text_table.text
        await bot.close()
    finally:
        await store.close()


def test_the_benchmark_script_runs_small() -> None:
    out = subprocess.run([sys.executable, "-m", "bench.stats", "--hands", "2000", "--repeat", "5"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300, check=True).stdout
    for label in ("stats", "top net day", "top net week", "top net all", "reference"):
        assert label in out, out
    plans = out.split("query plans:")[1].splitlines()
    for label, index in (("stats  ", "player"), ("stats chart series", "player"), ("top net day", "period"),
                         ("top net week", "period"), ("top net all", "player"), ("stats razz", "game"),
                         ("stats games", "game")):
        line = next(line for line in plans if line.strip().startswith(label.strip() + " ") and line.startswith(
            "  " + label))
        assert f"SEARCH hand_players USING COVERING INDEX hand_players_{index}" in line, line
    assert "SCAN hand_players" not in out, out


@pytest.mark.pg  # its own throwaway server (bench/pgserver.py): only with --backends=all
def test_the_benchmark_script_runs_small_on_postgresql() -> None:
    """``--backend postgresql``: the same figures on a throwaway server, and its plans use the stats indexes."""
    out = subprocess.run([sys.executable, "-m", "bench.stats", "--hands", "2000", "--repeat", "5", "--backend",
                          "postgresql"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "through the bot's Store on PostgreSQL (asyncpg)" in out, out
    plans = {line[2:22].strip(): line[23:] for line in out.split("query plans:")[1].splitlines() if line}
    for label, index in (("stats", "hand_players_player"), ("stats chart series", "hand_players_player"),
                         ("top net day", "hand_players_period"), ("top net week", "hand_players_period"),
                         ("stats razz", "hand_players_game")):  # 'stats games': either index, as 'stats' reads

        assert f"Index Scan on {index}" in plans[label] or f"Index Only Scan using {index}" in plans[label], (
            label, plans[label])
    assert "Seq Scan on hand_players" not in out, out


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_rule_g6_g7_stats_per_game_and_every_game_together(tmp_path: Path) -> None:
    """'stats' counts every game's hands (and lists each game's when there are several); 'stats razz' (the game's
    word before or after a name) only that game's, whose pots go whole to one hand (G6, G7)."""
    store = await open_sqlite(str(tmp_path / "g.db"), schema=MIGRATIONS)
    try:
        razz, stud = game_showdown(RAZZ_DOWN, Game.RAZZ), game_showdown(STUD_DOWN, Game.STUD)
        await store_hands(store, [*scripted_hands(), razz, stud])
        book = StatsBook(store)
        every, hilo = await book.player(COMMUNITY, "u-ann"), await book.player(COMMUNITY, "u-ann", game="stud8")
        assert (every.hands, hilo.hands) == (7, 5)
        only_razz = await book.player(COMMUNITY, "u-ann", game="razz")
        # ann's 7-5-3-2-A takes the razz pot whole: a pot won (a low), and unshared
        assert (only_razz.hands, only_razz.showdowns, only_razz.won_showdowns, only_razz.high_halves,
                only_razz.low_halves, only_razz.scoops, only_razz.net) == (1, 1, 1, 0, 1, 1, 3)
        only_stud = await book.player(COMMUNITY, "u-bob", game="stud")
        assert (only_stud.hands, only_stud.won_showdowns, only_stud.high_halves, only_stud.scoops,
                only_stud.net) == (1, 0, 0, 0, -3)
        assert await book.net_series(COMMUNITY, "u-ann", game="razz") == [3]
        assert await book.games(COMMUNITY, "u-ann") == [("razz", 1, 3), ("stud", 1, 3), ("stud8", 5, 17)]
        bot = _bot(store, ManualClock(T0 + 10))
        mine = (await bot.handle(_ask("ann", "stats"))).text
        assert mine.startswith("Stats of Ann here\nHands dealt: 7\n"), mine
        assert mine.splitlines()[-1] == ("By game: Razz 1 hand, +3 chips · Stud 1 hand, +3 chips · "
                                         "Stud Hi-Lo 5 hands, +17 chips")
        assert (await bot.handle(_ask("ann", "stats razz"))).text == (
            "Stats of Ann here, Razz\nHands dealt: 1\nVPIP (chips put in by choice on third street): 1 (100%)\n"
            "Showdowns: 1 seen, 1 won (100%)\nPots won at showdown: 1, 1 of them unshared\nNet: +3 chips\n"
            "Biggest pot won: 6 chips")
        assert (await bot.handle(_ask("ann", "stats stud8"))).text.startswith(
            "Stats of Ann here, Stud Hi-Lo\nHands dealt: 5\n")
        for asked in ("stats stud bob", "stats Bob STUD"):
            theirs = (await bot.handle(_ask("ann", asked))).text
            assert theirs.startswith("Stats of Bob here, Stud\nHands dealt: 1\n") and "Net: -3 chips" in theirs
        assert (await bot.handle(_ask("ann", "stats razz cat"))).text == (
            "Cat has not been dealt a hand of Razz here yet.")
        ru = (await bot.handle(_ask("ann", "stats razz", locale="ru"))).text
        assert ru.startswith("Статистика игрока Ann в этом сообществе, Разз\nРаздач: 1") and "из них без дележа 1" in ru
        pl = (await bot.handle(_ask("ann", "stats", locale="pl"))).text
        assert pl.splitlines()[-1].startswith("Według gier: Razz 1 rozdanie, +3 "), pl
        # the leaderboard counts every game, as before
        top = dict(await book.top_net(COMMUNITY, period="all", now=T0 + 10))
        assert top["Ann"] == every.net == 17 + 3 + 3
    finally:
        await store.close()


@pytest.mark.sqlite_only(reason="takes the file back a version with sqlite3")
@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_the_game_migration_backfills_each_rows_game_from_its_hands_setup(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        await store_hands(store, [*scripted_hands()[1:3], game_showdown(RAZZ_DOWN, Game.RAZZ),
                                  game_showdown(STUD_DOWN, Game.STUD)], users={"ann": 'u-"game": "razz"', "bob": "u-b"})
    finally:
        await store.close()
    version = MIGRATIONS.index(stats_rows.GAME_MIGRATION)
    with sqlite3.connect(db) as con:
        con.executescript(f"{drop_tables_after(version)} PRAGMA user_version = {version};")
        assert "game" not in [r[1] for r in con.execute("PRAGMA table_info(hand_players)")]
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    try:
        got = [tuple(r) for r in await store.fetch("SELECT h.hand_no, p.game FROM hand_players p JOIN hands h "
                                                    "ON h.id = p.hand_id WHERE p.user_id = 'u-b' ORDER BY h.hand_no")]
        assert got == [(1, "stud8"), (2, "stud8"), (3, "razz"), (4, "stud")]  # a name holding the words matches not
        assert (await StatsBook(store).player("console:c", "u-b", game="razz")).hands == 1
    finally:
        await store.close()
