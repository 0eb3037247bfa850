"""``hand N`` and ``export`` through the console: a real bot, real SQLite, hands played by users.

The story is read as a player reads it (street order, amounts, whose cards show); the exports
are read back with the strict PokerStars reader and loaded by PokerKit, and compared with the
engine's replay of the stored hand.
"""

from __future__ import annotations

import io
import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest
from backends import rows, snapshot
from pokerkit import HandHistory
from pokerstars_reader import ReadHand, read_file
from test_export_phh import pokerkit_replay
from tourney_script import next_line, play_sng

from adapters.console.app import ScriptSession
from adapters.console.chat import ConsoleChat, ConsoleMessenger
from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.schema import MIGRATIONS
from bot.store import open_sqlite
from engine import Action, Hand, HandFile, replay_hand
from engine.events import ActionTaken, CardDealt, HandShown

SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=1000,
                   time_bank=0)
pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]
SAVED = re.compile(r"^\[dm (\S+)\] File saved: (.+)$")


class Chat:
    """The console channel 'main' with a bot behind it, on a database file."""

    def __init__(self, tmp: Path, *, seed: int = 11) -> None:
        self.db, self.exports, self.seed = tmp / "stud.db", tmp / "exports", seed
        self.clock = ManualClock()
        self.out: list[str] = []

    async def __aenter__(self) -> Chat:
        self.store = await open_sqlite(str(self.db), schema=MIGRATIONS)
        messenger = ConsoleMessenger(self.out.append)
        self.bot = build_bot(SETTINGS, store=self.store, messenger=messenger, clock=self.clock,
                             rng=random.Random(self.seed))
        await self.bot.start()
        self.chat = ConsoleChat(self.bot, messenger, after=self.clock.settle, files_dir=self.exports)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bot.close()
        await self.store.close()

    async def say(self, user: str, text: str) -> list[str]:
        return await self.chat.say(user, text)

    async def start(self) -> None:
        """'start', then the table's pause: the first hand is dealt after its commitment is shown."""
        await self.say("ann", "start")
        await self.clock.advance(SETTINGS.next_hand_delay)

    def hand(self) -> Hand | None:
        rt = self.bot.tables.get("console:main")
        return rt.hand if rt is not None else None

    async def play_hand(self, *, folds: str | None = None) -> None:
        """Play the hand in progress to its end: ``folds`` gives up at once, the others complete
        once on third street and then check or call (house bots act by themselves)."""
        rt = self.bot.tables["console:main"]
        for _ in range(300):
            hand = rt.hand
            if hand is None or hand.is_over:
                return
            assert hand.actor is not None and rt.setup is not None
            user = rt.setup.players[hand.actor].user
            legal = hand.legal_actions()
            if user == folds:
                choice = Action.FOLD if Action.FOLD in legal else next(
                    a for a in (Action.BRING_IN, Action.CHECK, Action.CALL) if a in legal)
            elif Action.COMPLETE in legal and not any(
                    isinstance(e, ActionTaken) and e.action is Action.COMPLETE for e in hand.events):
                choice = Action.COMPLETE
            else:
                choice = next(a for a in (Action.CHECK, Action.CALL, Action.BRING_IN, Action.FOLD) if a in legal)
            await self.say(user, choice.value)
        raise AssertionError("the hand did not end")

    async def stored(self, number: int) -> Hand:
        [(text,)] = [tuple(r) for r in await self.store.fetch("SELECT hand_file FROM hands WHERE hand_no = ?",
                                                               (number,))]
        return replay_hand(HandFile.from_json(text))


async def seat_three(chat: Chat) -> None:
    """ann, bob and the house bot Bot4 at seats 1, 3 and 4 (cat sat at 2 and left before the deal)."""
    await chat.say("ann", "new")
    for user in ("ann", "cat", "bob"):
        await chat.say(user, "join 200")
    await chat.say("ann", "addbot")
    await chat.say("cat", "leave")
    await chat.start()


def dm(lines: list[str], user: str) -> list[str]:
    prefix = f"[dm {user}] "
    return [line.removeprefix(prefix) for line in lines if line.startswith(prefix)]


def down_of(hand: Hand, name: str) -> list[str]:
    seat = hand.names.index(name)
    return [e.card.pretty for e in hand.events if isinstance(e, CardDealt) and e.seat == seat and not e.face_up]


def shown_by(hand: Hand) -> set[str]:
    return {hand.names[e.seat] for e in hand.events if isinstance(e, HandShown)}


async def test_a_hand_is_told_street_by_street_with_only_the_askers_down_cards(tmp_path: Path) -> None:
    async with Chat(tmp_path, seed=3) as chat:  # a deal that goes to the showdown
        await seat_three(chat)
        await chat.play_hand(folds="bob")
        hand = await chat.stored(1)
        lines = await chat.say("ann", "hand 1")
        assert lines and all(line.startswith("[dm ann] ") for line in lines), lines  # private, nothing public
        story = dm(lines, "ann")
        text = "\n".join(story)
        assert story[0] == "Hand #1 — ante 1, bring-in 2, bets 5/10"
        assert story[1] == "Seats: 1. ann (200), 3. bob (200), 4. Bot4 (200)"  # the real seat numbers
        assert story[2] == "Antes: ann 1, bob 1, Bot4 1"
        heads = ["Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street"]
        where = [next(i for i, line in enumerate(story) if line.startswith(h)) for h in heads]
        assert where == sorted(where), story
        # every action, with its amount, in the order played, each on its street
        acts = [e for e in hand.events if isinstance(e, ActionTaken)]
        words = {Action.BRING_IN: "brings in {amount}", Action.COMPLETE: "completes to {total}",
                 Action.CALL: "calls {amount}", Action.CHECK: "checks", Action.FOLD: "folds",
                 Action.BET: "bets {amount}", Action.RAISE: "raises to {total}"}
        said = [i for i, line in enumerate(story)
                if re.match(r"^\S+ (brings in|completes|calls|checks|folds|bets|raises)", line)]
        assert [story[i].removesuffix(" (all-in)") for i in said] == [
            f"{hand.names[e.seat]} " + words[e.action].format(amount=e.amount, total=e.total) for e in acts]
        for e, i in zip(acts, said, strict=True):
            assert where[e.street - 3] < i and (e.street == 7 or i < where[e.street - 2])
        assert "bob folds" in text and "completes to 5" in text
        # the asker's own down cards, privately; bob's (folded, never shown) nowhere
        mine = down_of(hand, "ann")
        assert f"Your down cards: {mine[0]} {mine[1]}" in story
        assert f"Your down cards: {mine[2]}" in story
        assert not any(card in text for card in down_of(hand, "bob"))
        assert ("Showdown" in story) == bool(shown_by(hand))
        if "Bot4" in shown_by(hand):  # a hand shown at the showdown shows its down cards
            assert all(card in text for card in down_of(hand, "Bot4"))
        else:
            assert not any(card in text for card in down_of(hand, "Bot4"))
        assert re.search(r"^(Pot|Main pot) \d+: ", text, re.M)
        net = {name: hand.stacks[s] - hand.starting_stacks[s] for s, name in enumerate(hand.names)}
        assert story[-1] == "Net: " + ", ".join(f"{n} {v:+d}" if v else f"{n} 0" for n, v in net.items())
        # bob sees his own down cards, and none of ann's unless she showed them
        bob = "\n".join(dm(await chat.say("bob", "hand"), "bob"))  # no number: the last hand
        assert all(card in bob for card in down_of(hand, "bob"))
        assert ("ann" in shown_by(hand)) == all(card in bob for card in mine)
        if "ann" not in shown_by(hand):
            assert not any(card in bob for card in mine)
        # a watcher who did not play sees no down card that was not shown
        dan = "\n".join(dm(await chat.say("dan", "hand 1"), "dan"))
        assert "Your down cards" not in dan
        hidden = {c for name in hand.names if name not in shown_by(hand) for c in down_of(hand, name)}
        assert not any(card in dan for card in hidden)


async def test_the_story_speaks_the_askers_language(tmp_path: Path) -> None:
    async with Chat(tmp_path) as chat:
        await seat_three(chat)
        await chat.play_hand(folds="bob")
        await chat.say("ann", "lang ru")
        await chat.say("bob", "lang pl")
        assert dm(await chat.say("ann", "раздача 1"), "ann")[0] == "Раздача №1 — анте 1, бринг-ин 2, ставки 5/10"
        assert "Trzecia ulica" in dm(await chat.say("bob", "rozdanie 1"), "bob")


def check_read(read: ReadHand, hand: Hand, *, viewer: str, seats: list[int]) -> None:
    """The re-read hand has the engine's seats, actions and payouts, seen from ``viewer``."""
    assert read.viewer == viewer
    assert read.seats == [(seat, name, hand.starting_stacks[i]) for i, (seat, name) in
                          enumerate(zip(seats, hand.names, strict=True))]
    acts = [e for e in hand.events if isinstance(e, ActionTaken)]
    assert [(a.street, a.name, a.added, a.to) for a in read.acts] == [
        (e.street, hand.names[e.seat], e.amount, e.total) for e in acts]
    paid: dict[str, int] = {}
    for award in hand.pot_results:
        for seat, chips in award.shares.items():
            paid[hand.names[seat]] = paid.get(hand.names[seat], 0) + chips
    assert read.collected_by() == paid
    seat = hand.names.index(viewer)
    assert read.up[viewer][:2] == [str(c) for c in hand.cards[seat][:2]]  # the viewer's down cards


def saved(lines: list[str], user: str) -> list[Path]:
    return [Path(m.group(2)) for line in lines if (m := SAVED.match(line)) and m.group(1) == user]


async def test_export_writes_both_formats_for_the_asker_at_the_printed_paths(tmp_path: Path) -> None:
    async with Chat(tmp_path) as chat:
        await seat_three(chat)
        await chat.play_hand()
        hand = await chat.stored(1)
        lines = await chat.say("bob", "export")
        assert all(line.startswith("[dm bob] ") for line in lines), lines
        assert dm(lines, "bob")[0].startswith("Hand #1: PokerStars text and PHH, for your tracker, and its hand file")
        paths = saved(lines, "bob")
        assert [p.name for p in paths] == ["stud-hand-1.txt", "stud-hand-1.phh", "stud-hand-1.json",
                                           "stud-hand-1.html"]
        assert all(p.is_file() and tmp_path / "exports" in p.parents for p in paths)
        stars = paths[0].read_text()
        assert stars.startswith("PokerStars Hand #1:  7 Card Stud Hi/Lo Limit (5/10) - ")
        [read] = read_file(stars)
        check_read(read, hand, viewer="bob", seats=[1, 3, 4])
        assert [str(c) for c in hand.cards[hand.names.index("ann")][:2]] != read.up["ann"][:2]  # not ann's
        phh = paths[1].read_text()
        stacks, refused, why = pokerkit_replay(phh)
        assert refused is None, why
        assert stacks == list(hand.stacks)
        assert HandHistory.loads(phh).seats == [1, 3, 4]
        # a watcher who did not play gets the hand with nobody's down cards
        [watched] = read_file(saved(await chat.say("dan", "export 1"), "dan")[0].read_text())
        assert watched.viewer is None and watched.acts == read.acts
        assert all(watched.up[name] == [str(c) for c in hand.up_cards(s)] for s, name in enumerate(hand.names))


async def test_item12_a_user_named_dot_dot_exports_inside_exports(tmp_path: Path) -> None:
    """Issue 19 item 12: on the console a user named '..' wrote their exports beside the database,
    outside exports/. Each user's folder is one safe path component, another for every user."""
    async with Chat(tmp_path) as chat:
        await seat_three(chat)
        await chat.play_hand()
        exports = (tmp_path / "exports").resolve()
        folders = {}
        for user in ("..", ".", "../..", "a/b", "a%2Fb", "a_b", "bob"):
            paths = saved(await chat.say(user, "export all"), user)  # they did not play: 'all' (issue 25)
            assert [p.name for p in paths] == ["stud-hand-1.txt", "stud-hand-1.phh", "stud-hand-1.json",
                                           "stud-hand-1.html"], user
            assert all(p.is_file() and p.resolve().parent.parent == exports for p in paths), (user, paths)
            folders[user] = paths[0].parent
        assert len(set(folders.values())) == len(folders)  # one folder per user
        assert folders["bob"].name == "bob"
        assert not [p for p in tmp_path.rglob("stud-hand-*") if exports not in p.resolve().parents]


async def test_export_last_n_keeps_each_name_and_seat_across_its_hands(tmp_path: Path) -> None:
    async with Chat(tmp_path, seed=5) as chat:
        await seat_three(chat)
        for _ in range(3):
            await chat.play_hand()
            await chat.clock.advance(SETTINGS.next_hand_delay + 1)
        await chat.say("ann", "stop")
        lines = await chat.say("ann", "export last 3")  # the table is closed: its hands are still there
        assert dm(lines, "ann")[0] == ("Hands #1 to #3 (3): PokerStars text and PHH, for your tracker."
                                       " The .html file replays them in a browser.")
        paths = saved(lines, "ann")
        assert [p.name for p in paths] == ["stud-hands-1-3.txt", "stud-hands-1-3.phhs", "stud-hands-1-3.html"]
        reads = read_file(paths[0].read_text())
        assert [r.number for r in reads] == [1, 2, 3]
        for number, read in enumerate(reads, 1):
            check_read(read, await chat.stored(number), viewer="ann", seats=[1, 3, 4])
        histories = list(HandHistory.load_all(io.BytesIO(paths[1].read_bytes())))
        assert [h.hand for h in histories] == [1, 2, 3]
        for number, history in enumerate(histories, 1):
            assert history.players == ["ann", "bob", "Bot4"] and history.seats == [1, 3, 4]
            assert history.finishing_stacks == list((await chat.stored(number)).stacks)
        # more hands asked for than were played: the ones there are
        assert "Hands #1 to #3 (3)" in dm(await chat.say("bob", "export last 50"), "bob")[0]


async def _snapshot(db: Path, exports: Path) -> tuple[object, ...]:
    # hands.announced is delivery bookkeeping, written in the background as lines go out.
    rows = await snapshot(db, leave_out=frozenset({("hands", "announced")}))
    files = tuple(sorted(str(p) for p in exports.rglob("*"))) if exports.exists() else ()
    return rows, files


async def test_bad_requests_are_answered_and_change_nothing(tmp_path: Path) -> None:
    async with Chat(tmp_path) as chat:
        await chat.say("ann", "new")
        assert dm(await chat.say("ann", "hand 1"), "ann") == ["No hand has been finished at this table yet."]
        assert dm(await chat.say("ann", "export"), "ann") == ["No hand has been finished at this table yet."]
        for user in ("ann", "bob"):
            await chat.say(user, "join 200")
        await chat.start()
        await chat.play_hand()
        before = await _snapshot(chat.db, chat.exports)
        usage = ("export [hand number | last N] [all]: the hand history as files for poker trackers (PokerStars text"
                 " and PHH)")
        answers = {
            "hand 7": "There is no finished hand #7 at this table; the last one is #1.",
            "export 7": "There is no finished hand #7 at this table; the last one is #1.",
            "export last 0": f"'0' must be above 0; usage: {usage}",
            "export last 1000": f"at most 100 hands in one export; usage: {usage}",
            "export banana": f"'banana' is not a whole number; usage: {usage}",
            "export last": f"usage: {usage}",
            "export 1 2": f"usage: {usage}",
            "hand -3": "'-3' must be above 0; usage: hand [N]",
            "hand one": "'one' is not a whole number; usage: hand [N]",
            "hand 1 2": "usage: hand [N]",
        }
        for text, answer in answers.items():
            lines = await chat.say("ann", text)
            assert len(lines) == 1 and lines[0].startswith(f"[dm ann] {answer}"), (text, lines)
        assert await _snapshot(chat.db, chat.exports) == before
        # elsewhere: a channel with no table at all
        reply = await chat.bot.handle(replace(chat.chat.inbound("ann", "hand 1"), channel="other"))
        assert not reply.ok and reply.private and reply.text == "No hand has been finished at this table yet."


async def test_a_hand_settled_under_older_pot_rules_tells_what_was_paid(tmp_path: Path) -> None:
    async with Chat(tmp_path) as chat:
        await chat.say("ann", "new")
        for user in ("ann", "bob"):
            await chat.say(user, "join 200")
        await chat.start()
        await chat.play_hand()
        hand = await chat.stored(1)
        winner = max(range(2), key=lambda s: hand.stacks[s] - hand.starting_stacks[s])
        loser = 1 - winner
        pot = sum(hand.contributed)
        # as if it had been settled otherwise: the loser took one chip of the pot
        players = [[hand.names[winner], pot - 1, hand.stacks[winner] - hand.starting_stacks[winner] - 1],
                   [hand.names[loser], 1, hand.stacks[loser] - hand.starting_stacks[loser] + 1]]
        players.sort(key=lambda p: hand.names.index(str(p[0])))
        summary = json.dumps({"players": players, "pots": [{"amount": pot, "eligible": list(hand.names),
                                                            "high": [hand.names[winner]], "low": [hand.names[loser]]}]})
        await chat.store.execute("UPDATE hands SET summary = ? WHERE hand_no = 1", (summary,))
        story = dm(await chat.say("ann", "hand 1"), "ann")
        [said] = [line for line in story if line.startswith("Paid as settled at the time (earlier pot rules): ")]
        assert f"{hand.names[loser]} won 1" in said
        assert not any(re.match(r"^(Pot|Main pot) \d+: ", line) for line in story)  # not the replay's payout
        nets = {str(p[0]): int(p[2]) for p in players}
        assert story[-1] == "Net: " + ", ".join(f"{n} {nets[n]:+d}" if nets[n] else f"{n} 0" for n in hand.names)


async def test_rule_g8_hand_n_and_the_replayer_of_a_razz_sit_and_go_name_its_game(tmp_path: Path) -> None:
    """A hand of Razz is told as Razz: 'hand N' names the game before its header, its showdown gives the pot
    whole to the best low, and no line speaks of a high; the replayer page names the game too."""
    db = tmp_path / "razz.db"
    played = await play_sng(db=str(db), seed=5, setup=[
        "ann: tourney new seats=2 stack=200 buyin=10 levels=hands:1 game=razz", "ann: register", "ann: addbot"])
    assert any(line.startswith("[table] 🏆 ") for line in played.lines)
    out: list[str] = []
    session = await ScriptSession.open(db=str(db), seed=1, settings=Settings(), write=out.append)
    try:
        last = max(no for no, in await rows(db, "SELECT hand_no FROM hands WHERE status = 'done'"))
        for no in (1, last):  # the last hand went to a showdown or a fold: both are told as Razz
            await session.feed(f"ann: hand {no}")
        await session.feed("ann: replay 1")
    finally:
        await session.close()
    told = [line.removeprefix("[dm ann] ") for line in out if line.startswith("[dm ann] ")]
    assert told[0].startswith("Razz · Hand #1 — ante "), told
    assert not [line for line in told if re.search(r"\bhigh\b|scoop", line)], told
    assert any(re.match(r"Pot \d+: \S+ (wins \(|wins \d+, uncontested)", line) for line in told), told
    page = next(Path(m.group(2)) for line in out if (m := SAVED.match(line)) and m.group(2).endswith(".html"))
    html = page.read_text()
    assert "Razz" in html


async def test_rule_g8_every_hand_of_a_mix_sit_and_go_names_its_game(tmp_path: Path) -> None:
    """At a table that deals several games (here a sit-and-go of game=mix, levels of two hands), 'hand N' and the
    replayer name each hand's game, Stud Hi-Lo's too."""
    db = tmp_path / "mix.db"
    await play_sng(db=str(db), seed=11, setup=[
        "ann: tourney new seats=3 pace=turbo payout=winner stack=300 buyin=10 levels=hands:2 game=mix",
        "ann: register", "ann: addbot Robo", "ann: addbot Dora"])
    out: list[str] = []
    session = await ScriptSession.open(db=str(db), seed=1, settings=Settings(), write=out.append)
    try:
        for no in (1, 3, 5):
            await session.feed(f"ann: hand {no}")
        await session.feed("ann: replay 5")
    finally:
        await session.close()
    headers = [line.removeprefix("[dm ann] ") for line in out if re.match(r"^\[dm ann\] \S.* · Hand #\d+ — ", line)]
    assert [h.split(" — ")[0] for h in headers] == ["Razz · Hand #1", "Stud · Hand #3", "Stud Hi-Lo · Hand #5"]
    page = next(Path(m.group(2)) for line in out if (m := SAVED.match(line)) and m.group(2).endswith(".html"))
    assert "Stud Hi-Lo · Hand #5" in page.read_text()


async def test_rule_g8_history_at_a_mix_sit_and_go_names_every_lines_game(tmp_path: Path) -> None:
    """'history' lists hands of several games (a mix sit-and-go, a level a hand): every line names its game."""
    out: list[str] = []
    session = await ScriptSession.open(db=str(tmp_path / "h.db"), seed=3, settings=Settings(), write=out.append)
    try:
        for line in ("ann: tourney new seats=2 stack=5000 levels=hands:1 game=mix", "ann: register", "ann: addbot"):
            await session.feed(line)
        answered: set[str] = set()
        for _ in range(400):
            if sum(1 for line in out if re.match(r"^\[table\] Hand #\d+: ", line)) >= 5:
                break
            await session.feed(next_line(out, human="ann", answered=answered))
        start = len(out)
        await session.feed("ann: history 3")
    finally:
        await session.close()
    listed = [line.removeprefix("[dm ann] ") for line in out[start:] if line.startswith("[dm ann] #")]
    games = {int(line[1:].split(":")[0]): line.split(": ")[1] for line in listed}  # newest first
    assert games == {n: ("Razz", "Stud", "Stud Hi-Lo")[(n - 1) % 3] for n in games} and len(games) == 3, listed
