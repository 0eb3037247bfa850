"""Properties of the sit-and-go structure: prizes add up to the pool, places are a permutation,
levels never go down, a mix's levels take the games in turn (bot/tourney/schedule.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core.limits import PAYOUTS
from bot.tourney.schedule import LEVELS, Clocking, level_game, level_stakes, place_out, places_paid, prizes
from engine.games import MIX_ORDER, Game


@given(pool=st.integers(0, 10**9), payout=st.sampled_from(sorted(PAYOUTS)), players=st.integers(2, 8))
def test_prizes_add_up_to_the_pool_and_fall_with_the_place(pool: int, payout: str, players: int) -> None:
    table = prizes(pool, places_paid(payout, players))
    assert sum(table) == pool and all(p >= 0 for p in table)
    assert table == sorted(table, reverse=True)
    assert len(table) < players  # the last place never gets its buy-in back


@given(st.integers(1, 60))
def test_levels_never_go_down_and_keep_the_stud_proportions(level: int) -> None:
    here, there = level_stakes(level), level_stakes(level + 1)
    assert (here.ante, here.bring_in, here.small_bet, here.big_bet) < (there.ante, there.bring_in, there.small_bet,
                                                                       there.big_bet)
    assert all(a <= b for a, b in zip((here.ante, here.bring_in, here.small_bet, here.big_bet),
                                      (there.ante, there.bring_in, there.small_bet, there.big_bet), strict=True))
    assert here.big_bet == 2 * here.small_bet
    assert here.small_bet / 6 <= here.ante <= here.small_bet / 4  # about a fifth
    assert here.small_bet / 4 <= here.bring_in <= here.small_bet / 2  # about a third
    assert len(LEVELS) >= 15


@given(unit=st.sampled_from(["hands", "minutes"]), length=st.integers(1, 120),
       steps=st.lists(st.tuples(st.integers(0, 3), st.floats(0, 900)), max_size=60))
def test_the_level_clock_never_goes_down(unit: str, length: int, steps: list[tuple[int, float]]) -> None:
    clock = Clocking(unit, length)
    hands, seconds, last = 0, 0.0, 1
    for more_hands, more_seconds in steps:
        hands, seconds = hands + more_hands, seconds + more_seconds
        level = clock.level_at(hands_played=hands, seconds=seconds)
        assert level >= last
        last = level


@settings(max_examples=300)
@given(payout=st.sampled_from(sorted(PAYOUTS)), pool=st.integers(0, 100_000),
       hands=st.lists(st.lists(st.integers(1, 5000), min_size=1, max_size=4), min_size=1, max_size=8))
def test_a_whole_tournament_places_everyone_once_and_pays_the_pool(payout: str, pool: int,
                                                                   hands: list[list[int]]) -> None:
    """Players go out in groups (a group: one hand, each with the chips they started it with);
    whatever is left at the end is the winner."""
    starts = [c for group in hands for c in group]
    n = len(starts) + 1
    table = prizes(pool, places_paid(payout, n))
    left, user = n, 0
    placed: dict[str, tuple[int, int]] = {}
    for group in hands:
        out = []
        for chips in group:
            out.append((f"p{user}", chips))
            user += 1
        left -= len(out)
        placings = place_out(out=out, left=left, table=table)
        assert sorted(p.user for p in placings) == sorted(u for u, _ in out)
        by_chips = sorted(placings, key=lambda p: -dict(out)[p.user])
        assert [p.place for p in by_chips] == sorted(p.place for p in placings)  # more chips, better place
        for p in placings:
            placed[p.user] = (p.place, p.prize)
            assert all(q.place == p.place for q in placings if dict(out)[q.user] == dict(out)[p.user])
    placed["winner"] = (1, table[0])
    assert left == 1
    assert sum(prize for _, prize in placed.values()) == pool
    # Places are a permutation of 1..n once shared places count for every place they cover.
    expanded: list[int] = []
    for place in sorted({place for place, _ in placed.values()}):
        count = sum(1 for v in placed.values() if v[0] == place)
        expanded += range(place, place + count)
    assert expanded == list(range(1, n + 1))


@given(level=st.integers(1, 200), game=st.sampled_from(["stud8", "stud", "razz", "mix"]))
def test_rule_g8_a_levels_game_is_the_tournaments_or_the_mixs_turn(level: int, game: str) -> None:
    """G8: a single game's every level deals it; the mix deals Razz, Stud, Stud Hi-Lo level by level, each
    game every third level, and consecutive levels never deal the same game."""
    dealt = level_game(game, level)
    if game != "mix":
        assert dealt is Game.from_str(game)
        return
    assert dealt is MIX_ORDER[(level - 1) % 3] and dealt is level_game(game, level + 3)
    assert dealt is not level_game(game, level + 1)
    assert level_game(game, 1) is Game.RAZZ
