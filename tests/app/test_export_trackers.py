"""Exports that fpdb, the one tracker that imports stud, stores whole (issue 25).

One database, three tables played in turn in the console's script mode: a cash table at 5/10 (a
stake PokerStars ran), one at 7/14 (a stake it never ran), and a sit-and-go with a buy-in whose
levels rise every two hands. Every export is read back with the strict reader of the forms fpdb's
PokerStars converter accepts; the hand numbers of all of them together never repeat (fpdb keys a
hand by site and number and drops a second one as a duplicate) and are each hand's number in the
database, the same on every export.

With ``STUDBOT_EXPORT_SAMPLES=DIR`` the files are also copied there, to be imported by fpdb itself
(``scripts/fpdb_import.py``; fpdb is no package that CI can install).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from backends import rows
from pokerstars_reader import ReadHand, check_numbers, read_file
from tourney_script import next_line

from adapters.console.app import ScriptSession
from bot.core.config import Settings
from bot.tourney.schedule import level_of
from engine import HandFile

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]
SAVED = re.compile(r"^\[dm (\S+)\] File saved: (.+)$")
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10, "XI": 11,
         "XII": 12, "XIII": 13, "XIV": 14, "XV": 15, "XVI": 16, "XVII": 17, "XVIII": 18, "XIX": 19, "XX": 20}


class Night:
    """A script session and the lines it printed."""

    def __init__(self, session: ScriptSession, lines: list[str]) -> None:
        self.session, self.lines = session, lines

    async def say(self, *script: str) -> list[str]:
        start = len(self.lines)
        for line in script:
            await self.session.feed(line)
        return self.lines[start:]

    async def play(self, *, until_hand: int | None = None, until_closed: bool = False, human: str = "ann") -> None:
        """Answer ``human``'s prompts (check, else call, else the first option) and let the clock run,
        until the table has finished ``until_hand`` hands or has closed."""
        answered: set[str] = set()
        for _ in range(4000):
            tables = self.session.bot.tables
            if until_closed and not tables:
                return
            rt = next(iter(tables.values()), None)
            if until_hand is not None and rt is not None and rt.table.hand_no > until_hand:  # the next is dealt
                return
            await self.say(next_line(self.lines, human=human, answered=answered))
        raise AssertionError("the table did not get there")

    async def export(self, user: str, text: str) -> str:
        """The PokerStars text of the export (read at once: the next export may write the same file name)."""
        out = await self.say(f"{user}: {text}")
        files = [Path(m.group(2)) for line in out if (m := SAVED.match(line)) and m.group(1) == user]
        assert files, out
        return next(f for f in files if f.suffix == ".txt").read_text()


async def test_issue25_exports_of_three_tables_read_as_fpdb_reads_them(tmp_path: Path) -> None:
    db = str(tmp_path / "night.db")
    lines: list[str] = []
    session = await ScriptSession.open(db=db, seed=25, settings=Settings(starting_balance=5000), write=lines.append)
    night = Night(session, lines)
    samples = os.environ.get("STUDBOT_EXPORT_SAMPLES")
    try:
        # 1: a cash table at 5/10; bob sits out after a few hands' watching
        await night.say("ann: new", "ann: join 400", "ann: addbot Robo", "ann: addbot Dora", "ann: start")
        await night.play(until_hand=4)
        cash = await night.export("ann", "export last 4")
        assert not [x for x in await night.say("bob: export last 4") if "File saved" in x]
        refused = "\n".join(await night.say("bob: export last 4"))
        assert "You were not dealt into any finished hand here" in refused, refused
        await night.say("ann: stop")
        await night.play(until_closed=True)  # the hand in progress ends, then the table closes
        # 2: a cash table at 7/14, a stake PokerStars never ran
        await night.say("ann: new", "ann: config ante=1 bring_in=2 small=7 big=14", "ann: join 400",
                        "ann: addbot Robo", "ann: addbot Max", "ann: start")
        await night.play(until_hand=4)
        odd = await night.export("ann", "export last 4")
        await night.say("ann: stop")
        await night.play(until_closed=True)
        # 3: a sit-and-go, a level every two hands, played to its end
        await night.say("ann: tourney new seats=3 pace=turbo stack=300 buyin=100 levels=hands:2", "ann: register",
                        "ann: addbot Robo", "ann: addbot Dora")
        await night.play(until_closed=True)
        sng = await night.export("ann", "export last 40 all")
        again = await night.export("ann", "export last 4")  # the same hands, exported a second time
    finally:
        await session.close()

    def hands(text: str) -> list[ReadHand]:
        return read_file(text)

    cash_hands, odd_hands, sng_hands = hands(cash), hands(odd), hands(sng)
    assert len(cash_hands) == 4 and len(odd_hands) == 4 and len(sng_hands) >= 6
    every = cash_hands + odd_hands + sng_hands
    check_numbers(every)  # unique across the three tables
    stored = await rows(db, "SELECT id, table_id, hand_no, hand_file FROM hands WHERE status = 'done' ORDER BY id")
    by_id = {int(r[0]): (int(r[1]), int(r[2]), HandFile.from_json(r[3])) for r in stored}
    tables = sorted({t for t, _, _ in by_id.values()})
    assert len(tables) == 3
    for read in every:  # each hand's number is its id in the database, and the hand is that hand
        _, _, hand_file = by_id[read.number]
        assert [(name, chips) for _, name, chips in read.seats] == [tuple(p) for p in hand_file.players]
    assert {by_id[h.number][0] for h in cash_hands} == {tables[0]}
    # stable: a second export of the same hands gives the same numbers
    assert [h.number for h in hands(again)] == [h.number for h in sng_hands if h.number in
                                                 {x.number for x in hands(again)}]
    # the forms: a ring game at 5/10; a home-game freeroll at 7/14; tournament hands with their level
    assert all(h.tournament is None and h.play_money and (h.small, h.big) == (5, 10) for h in cash_hands)
    assert all(h.club == "Stud console main" and h.tournament == 10 ** 9 + tables[1] and h.buyin is None
               and h.level == "I" and (h.small, h.big) == (7, 14) and h.table == f"{h.tournament} 1"
               for h in odd_hands)
    [(tourney_id,)] = await rows(db, "SELECT id FROM tournaments")
    for h in sng_hands:
        assert h.tournament == tourney_id and h.buyin == (100, 0) and h.club is None and not h.play_money
        stakes = by_id[h.number][2].stakes
        assert ROMAN[h.level or ""] == level_of(stakes) and (h.small, h.big) == (stakes.small_bet, stakes.big_bet)
    assert len({h.level for h in sng_hands}) >= 3  # the levels rose
    if samples:
        out = Path(samples)
        out.mkdir(parents=True, exist_ok=True)
        for name, text in (("cash-5-10", cash), ("cash-7-14", odd), ("sit-and-go", sng)):
            (out / f"{name}.txt").write_text(text)


async def test_issue21_a_mix_tables_export_names_each_hands_game_as_pokerstars_does(tmp_path: Path) -> None:
    """G8/G9: a stud mix table (two hands a game) exports each hand under its own game's header (`Razz Limit`,
    `7 Card Stud Limit`, `7 Card Stud Hi/Lo Limit`), read back by the strict reader, numbered as stored."""
    db = str(tmp_path / "mix.db")
    lines: list[str] = []
    session = await ScriptSession.open(db=db, seed=21, settings=Settings(starting_balance=5000), write=lines.append)
    night = Night(session, lines)
    try:
        await night.say("ann: new", "ann: config game=mix mix_hands=2", "ann: join 400", "ann: addbot Robo",
                        "ann: addbot Dora", "ann: start")
        await night.play(until_hand=6)
        text = await night.export("ann", "export last 6")
    finally:
        await session.close()
    read = read_file(text)
    assert len(read) == 6
    check_numbers(read)
    stored = await rows(db, "SELECT id, hand_file FROM hands WHERE status = 'done' ORDER BY id")
    games = {int(r[0]): HandFile.from_json(r[1]).game.value for r in stored}
    assert [h.game for h in read] == [games[h.number] for h in read] == ["razz", "razz", "stud", "stud", "stud8",
                                                                          "stud8"]
