"""The game a table deals (GAMES.md G8): ``config game=`` and ``config mix_hands=``, and the mix's
rotation announced before the first hand of each of its games.

A change of game never touches the hand in progress (its game was fixed before its deal): it applies
from the next hand, and the table is told so before that hand.

>>> from engine import Stakes
>>> t = Table(id=1, platform="console", community="c", channel="c", creator="ann", stakes=Stakes(), timer=30,
...           hand_no=6)
>>> wanted_setting(t, {"game": "mix"})
GameSetting(game='mix', mix_hands=8, mix_start=6)
>>> wanted_setting(t, {"game": "stud8"}) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.core.model import MIX, Table
from bot.table.output import TableOutput
from bot.table.runtime import Runtime, TableHooks
from bot.text import render, results
from engine.games import MIX_ORDER


@dataclass(frozen=True, slots=True)
class GameSetting:
    """What a table deals: :attr:`Table.game`, :attr:`Table.mix_hands`, :attr:`Table.mix_start`."""

    game: str
    mix_hands: int
    mix_start: int


def wanted_setting(table: Table, options: Mapping[str, int | str]) -> GameSetting | None:
    """The table's game after a ``config`` with ``options`` (read by the grammar: a game of
    :data:`~bot.core.model.TABLE_GAMES`, ``mix_hands`` in its range), or None if it does not change.

    Choosing the mix starts it with Razz at the next hand. A new ``mix_hands`` on a mix table keeps the
    next hand's game and how many hands of it were dealt (the rotation goes on, never jumps):

    >>> from engine import Stakes
    >>> t = Table(id=1, platform="console", community="c", channel="c", creator="ann", stakes=Stakes(), timer=30,
    ...           game="mix", mix_hands=4, mix_start=0, hand_no=5)  # hands 5-8 are Stud: the next is its 2nd
    >>> s = wanted_setting(t, {"mix_hands": 2})
    >>> t.mix_hands, t.mix_start = s.mix_hands, s.mix_start
    >>> [t.game_of_hand(n).value for n in (6, 7, 8, 9)]
    ['stud', 'stud8', 'stud8', 'razz']
    """
    game = str(options.get("game", table.game))
    hands = int(options.get("mix_hands", table.mix_hands))
    if game == table.game and hands == table.mix_hands:
        return None
    start = table.mix_start
    if game == MIX and table.game != MIX:
        start = table.hand_no  # hand_no + 1, the next, is the mix's first: Razz
    elif game == MIX:
        index = max(0, table.hand_no - table.mix_start)  # the next hand's place in the old rotation
        order, dealt = index // table.mix_hands % len(MIX_ORDER), index % table.mix_hands
        start = table.hand_no - (order * hands + min(dealt, hands - 1))
    return GameSetting(game=game, mix_hands=hands, mix_start=start)


async def announce_setting(output: TableOutput, rt: Runtime, *, changed_game: bool) -> None:
    """The line that says what the table deals from the next hand (during a hand: 'from the next hand')."""
    if rt.table.game != MIX and not changed_game:
        return  # mix_hands of a table that does not deal the mix: kept for later, nothing changes now
    table = rt.table
    await output.say(rt, "line.game_next" if rt.playing else "line.game",
                     game=lambda tr: render.table_game_text(table, tr))


class MixRotation(TableHooks):
    """Before the first hand of each game of a mix table, its game and for how many hands: 'Next: Stud for
    8 hands.' (G8: a change of game is announced before the hand it applies to). Tournaments change
    their game with the level instead (bot/tourney)."""

    def __init__(self, *, output: TableOutput) -> None:
        self.output = output

    async def before_deal(self, rt: Runtime) -> None:
        table = rt.table
        if table.game != MIX or table.tournament is not None:
            return
        no = table.hand_no + 1
        index = no - 1 - table.mix_start
        if index < 0 or index % table.mix_hands:
            return
        game = table.game_of_hand(no)
        await self.output.say(rt, "line.next_game", game=lambda tr: results.game_name(tr, game),
                              hands=lambda tr: tr.n("game.n_hands", table.mix_hands))
