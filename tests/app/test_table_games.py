"""A table's game at the table (GAMES.md G8): 'config game=' and 'config mix_hands=', the board and the
lines that name each hand's game, the mix's rotation announced before the hand it applies to, and
'rules' for the game being dealt. Through the console, on SQLite and PostgreSQL as test_console.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_console import Table

from bot.core.errors import UsageError
from bot.text.grammar import parse
from engine.games import Game

pytestmark = pytest.mark.usefixtures("store_backend")


async def _seated(t: Table, *names: str) -> None:
    await t.say("ann", "new")
    for name in names:
        await t.say(name, "join 100")


def _saved(t: Table) -> tuple[str, int, int]:
    table = t.runtime.table
    return table.game, table.mix_hands, table.mix_start


@pytest.mark.asyncio
async def test_rule_g8_config_game_between_hands_names_the_game_on_the_board(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        assert "Stud Hi-Lo · ante 1" in await t.say("ann", "board")  # the default, named
        out = await t.say("ann", "config game=razz")
        assert "The table now deals Razz." in out
        assert "Razz · ante 1, bring-in 2" in await t.say("ann", "board")
        assert _saved(t)[0] == "razz"
        assert "[dm cat] You are seated at the Razz table with 100 chips." in await t.say("cat", "join 100")
        await t.start()
        assert "Hand #1 · Razz · third street · ante 1, bring-in 2, bets 5/10" in await t.say("ann", "board")
        assert t.runtime.hand is not None and t.runtime.hand.game is Game.RAZZ
    async with Table(tmp_path / "t.db") as t:  # kept over a restart, the hand with its game
        assert _saved(t)[0] == "razz" and t.runtime.hand is not None and t.runtime.hand.game is Game.RAZZ


@pytest.mark.asyncio
@pytest.mark.parametrize("typed", ["config game=chess", "config game=", "config mix_hands=0", "config mix_hands=51",
                                   "config mix_hands=x", "config game=razz mix_hands=99"])
async def test_bad_game_options_get_the_usage_and_change_nothing(tmp_path: Path, typed: str) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        before = _saved(t)
        out = await t.say("ann", typed)
        assert "usage: config ante=1" in out and "game=stud8|stud|razz|mix mix_hands=8" in out
        assert _saved(t) == before


@pytest.mark.asyncio
async def test_only_the_host_sets_the_game(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        out = await t.say("bob", "config game=razz")
        assert "The table now deals" not in out and _saved(t)[0] == "stud8"


@pytest.mark.asyncio
async def test_rule_g8_a_change_during_a_hand_waits_for_the_next_hand_and_says_so(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        await t.start()
        assert "The table deals Stud from the next hand." in await t.say("ann", "config game=stud")
        hand = t.runtime.hand
        assert hand is not None and hand.game is Game.STUD8  # fixed before its deal
        assert "Hand #1 · Stud Hi-Lo ·" in await t.say("ann", "board")
        await t.call_down()
        await t.wait(5)
        assert "Hand #2 · Stud ·" in await t.say("ann", "board")
        assert t.runtime.hand is not None and t.runtime.hand.game is Game.STUD


@pytest.mark.asyncio
async def test_rule_g8_the_mix_starts_with_razz_and_announces_each_game_before_its_first_hand(
        tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        await t.start()
        await t.call_down()  # hand 1: Stud Hi-Lo
        out = await t.say("ann", "config game=mix mix_hands=2")
        assert "The table now deals the stud mix (Razz, Stud, Stud Hi-Lo; 2 hands each)." in out
        assert _saved(t) == ("mix", 2, 1)
        seen: list[tuple[int, str]] = []
        for _ in range(7):  # hands 2-8
            out = await t.wait(5)
            hand = t.runtime.hand
            assert hand is not None
            seen.append((t.runtime.table.hand_no, hand.game.value))
            label = {"razz": "Razz", "stud": "Stud", "stud8": "Stud Hi-Lo"}[hand.game.value]
            assert f"Hand #{t.runtime.table.hand_no} · {label} ·" in await t.say("ann", "board")
            starts_game = (t.runtime.table.hand_no - 2) % 2 == 0
            assert (f"Next: {label} for 2 hands." in out) == starts_game
            if starts_game:  # the announcement comes before the deal
                assert out.index("Next:") < out.index(f"Hand #{t.runtime.table.hand_no} · {label}: ")
            await t.call_down()
        assert seen == [(2, "razz"), (3, "razz"), (4, "stud"), (5, "stud"), (6, "stud8"), (7, "stud8"), (8, "razz")]


@pytest.mark.asyncio
async def test_mix_hands_changed_mid_rotation_keeps_the_next_hands_game(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        await t.say("ann", "config game=mix mix_hands=3")
        assert "Stud mix, Razz next · ante 1" in await t.say("ann", "board")
        await t.start()
        await t.call_down()  # hand 1: Razz, the first of 3
        out = await t.say("ann", "config mix_hands=1")
        assert "the stud mix (Razz, Stud, Stud Hi-Lo; 1 hand each)" in out
        assert t.runtime.table.game_of_hand(2) is Game.RAZZ  # not a jump to another game
        assert t.runtime.table.game_of_hand(3) is Game.STUD


@pytest.mark.asyncio
async def test_rules_explain_the_game_being_dealt(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _seated(t, "ann", "bob")
        assert "Seven Card Stud Hi-Lo, eight or better" in await t.say("bob", "rules")
        await t.say("ann", "config game=razz")
        out = await t.say("bob", "rules")
        assert "Razz: Seven Card Stud for the lowest hand" in out and "5-4-3-2-A" in out
        await t.say("ann", "config game=stud")
        assert "the double bet" in await t.say("bob", "rules")
        await t.say("ann", "config game=mix")
        out = await t.say("bob", "rules")
        assert "The stud mix deals Razz, then Stud" in out and "Razz: Seven Card" in out
        await t.say("ann", "lang ru")
        await t.say("bob", "lang ru")
        assert "Разз: семикарточный стад" in await t.say("bob", "rules")


async def _stud_fourth_street_with_a_pair(t: Table) -> str:
    """Seed 5 deals a Stud hand whose fourth street shows a pair (G5); third street called down.
    The player to act's options."""
    await _seated(t, "ann", "bob")
    await t.say("ann", "config game=stud")
    await t.start()
    while (hand := t.runtime.hand) is not None and hand.street < 4:
        player, legal, _ = t.to_act()
        await t.say(player, "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check")
    assert t.runtime.hand is not None and t.runtime.hand.double_bet_open
    return t.to_act()[1]


@pytest.mark.asyncio
async def test_rule_g5_the_double_bet_is_offered_and_typed_by_its_size(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=5) as t:
        assert await _stud_fourth_street_with_a_pair(t) == "check · bet 5 · bet 10"
        player, _, turn = t.to_act()
        other = "bob" if player == "ann" else "ann"
        out = await t.say(player, "bet 7")
        assert "You cannot bet 7 now; you can: check · bet 5 · bet 10." in out  # and nothing changed
        assert t.to_act() == (player, "check · bet 5 · bet 10", turn)
        assert f"{player} bets 10 (the double bet: a pair shows)" in await t.say(player, "bet 10")
        assert t.to_act()[1] == "call 10 · fold · raise to 20"  # after a big bet, every raise is big
        _, _, turn = t.to_act()
        assert f"{other} raises to 20" in await t.say(other, f"raise @{turn}")
        hand = t.runtime.hand
        assert hand is not None and [a.value for a in hand.actions][-2:] == ["bet-big", "raise"]


@pytest.mark.asyncio
async def test_rule_g5_after_a_small_bet_the_raise_may_be_small_or_big_and_buttons_send_it(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=5) as t:
        await _stud_fourth_street_with_a_pair(t)
        player, _, _ = t.to_act()
        other = "bob" if player == "ann" else "ann"
        assert f"{player} bets 5" in await t.say(player, "bet")  # the small bet, as before
        _, legal, turn = t.to_act()
        assert legal == "call 5 · fold · raise to 10 · raise to 15"
        out = await t.say(other, f"raise-big @{turn}")  # the button of 'Raise to 15'
        assert f"{other} raises to 15 (by the big bet)" in out
        assert t.to_act()[1] == "call 10 · fold · raise to 25"


@pytest.mark.asyncio
async def test_rule_g5_bet_big_where_there_is_no_double_bet_is_refused_with_the_reason(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=5) as t:
        await _seated(t, "ann", "bob")
        await t.start()  # Stud Hi-Lo: no double bet (rule 7)
        while (hand := t.runtime.hand) is not None and hand.street < 4:
            player, legal, _ = t.to_act()
            await t.say(player, "bring-in" if "bring-in" in legal else "call" if "call" in legal else "check")
        player, legal, _ = t.to_act()
        out = await t.say(player, "bet big")
        assert "You cannot bet now: the double bet is only for Stud's fourth street" in out
        assert t.to_act()[1] == legal
        assert "You cannot bet 10 now; you can: check · bet 5." in await t.say(player, "bet 10")


@pytest.mark.parametrize(("typed", "name", "args"), [
    ("bet", "bet", ()), ("bet big", "bet", ("big",)), ("bet 10", "bet", (10,)), ("raise 15", "raise", (15,)),
    ("raise BIG", "raise", ("big",)), ("бет большую", "bet", ("big",)), ("stawiam duży", "bet", ("big",)),
    ("bet-big @3.4", "bet", ("big",)), ("r big", "raise", ("big",)),
])
def test_typed_sizes_of_bet_and_raise(typed: str, name: str, args: tuple[object, ...]) -> None:
    command = parse(typed)
    assert (command.name, command.args) == (name, args)


@pytest.mark.parametrize("typed", ["bet 0", "bet -5", "bet small", "bet 5 10", "raise big big", "call 5", "fold big"])
def test_bad_sizes_get_the_usage(typed: str) -> None:
    with pytest.raises(UsageError):
        parse(typed)


@pytest.mark.asyncio
async def test_rule_g5_a_stack_no_bigger_than_the_small_bet_cannot_make_the_double_bet(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=5) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 10")
        await t.say("bob", "join 100")
        await t.say("ann", "config game=stud")
        await t.start()
        assert "bob brings in 2" in await t.say("bob", "bring-in")
        assert "ann completes to 5" in await t.say("ann", "complete")
        assert "bob calls 3" in await t.say("bob", "call")
        hand = t.runtime.hand
        assert hand is not None and hand.street == 4 and hand.double_bet_open and hand.stacks[0] == 4
        player, legal, _ = t.to_act()
        assert (player, legal) == ("ann", "check · bet 4")  # all in with the small bet; no second button
        out = await t.say("ann", "bet big")
        assert "You cannot bet now: only 4 chips left, not more than the small bet" in out
        assert t.to_act()[1] == legal
        out = await t.say("ann", "bet 4")
        assert "ann bets 4 (all-in)" in out
