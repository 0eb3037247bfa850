"""engine.equity: each live player's share of every pot at an all-in, checked against brute force
through the engine's own showdown, against poker-equity, and for determinism and the command line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pytest

from engine import ALL_CARDS, Card, Deck, DeckDealer, Hand, Stakes
from engine.equity import all_in_equity, equity_after, equity_of_spot, run, spot_at
from engine.equity_deal import Splitter, Spot, count_exact, count_heads_up
from engine.evaluate import high_value
from engine.games import Scoring, low_of
from engine.handfile import HandFile, hand_file_of, replay_hand
from engine.pots import Pot, split_pot
from engine.showdown import settle_showdown
from tests.support.helpers import make_hand

ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- brute force


@dataclass
class _View:
    """A ShowdownView of a hand whose cards are given outright: what settle_showdown reads."""

    hand: Hand
    cards: list[list[Card]]
    community: Card | None

    @property
    def seat_count(self) -> int:
        return self.hand.seat_count

    @property
    def live_seats(self) -> list[int]:
        return self.hand.live_seats

    @property
    def last_aggressor(self) -> int | None:
        return self.hand.last_aggressor

    @property
    def last_round_first(self) -> int | None:
        return self.hand.last_round_first

    @property
    def bring_in_seat(self) -> int | None:
        return self.hand.bring_in_seat

    @property
    def contributed(self) -> Sequence[int]:
        return self.hand.contributed

    @property
    def folded(self) -> Sequence[bool]:
        return self.hand.folded

    def is_all_in(self, seat: int) -> bool:
        return not self.hand.folded[seat] and self.hand.starting_stacks[seat] == self.hand.contributed[seat]

    def _all(self, seat: int) -> list[Card]:
        return self.cards[seat] + ([self.community] if self.community else [])

    def high_value(self, seat: int) -> int:
        return high_value(self._all(seat))

    def low_value(self, seat: int) -> int | None:
        return low_of(self.hand.scoring, self._all(seat))

    @property
    def scoring(self) -> Scoring:
        return self.hand.scoring


def brute_force(hand: Hand, street: int) -> tuple[dict[str, float], dict[str, float], int]:
    """Every run-out from ``street`` dealt out and settled by the engine's settle_showdown."""
    live = hand.live_seats
    known = {s: list(hand.cards[s][:street]) for s in live}
    seen = {c for cards in known.values() for c in cards}
    seen |= {c for s in range(hand.seat_count) if hand.folded[s] for c in hand.up_cards(s)}
    unseen = [c for c in ALL_CARDS if c not in seen]
    community_due = hand.community is not None
    need = 6 - street if community_due else 7 - street
    total = sum(hand.contributed)
    sums = dict.fromkeys(live, 0.0)
    scoops = dict.fromkeys(live, 0)
    deals = 0

    def deal(index: int, pool: list[Card], drawn: dict[int, list[Card]]) -> None:
        nonlocal deals
        if index == len(live):
            for common in (pool if community_due else [None]):
                view = _View(hand=hand, cards=[known.get(s, []) + drawn.get(s, []) for s in range(hand.seat_count)],
                             community=common)
                settlement = settle_showdown(view)
                deals += 1
                for s in live:
                    sums[s] += settlement.won[s] / total
                    mine = [r for r in settlement.results if s in r.eligible]
                    if all(r.shares.get(s, 0) == r.amount for r in mine):
                        scoops[s] += 1
            return
        for combo in combinations(pool, need):
            rest = [c for c in pool if c not in combo]
            deal(index + 1, rest, {**drawn, live[index]: list(combo)})

    deal(0, unseen, {})
    names = hand.names
    return ({names[s]: v / deals for s, v in sums.items()}, {names[s]: v / deals for s, v in scoops.items()}, deals)


def aggressive(hand: Hand) -> Hand:
    """Raise, bet or complete whenever allowed, else call or check: short stacks go all in."""
    while not hand.is_over:
        legal = {a.value for a in hand.legal_actions()}
        for choice in ("raise", "bet", "complete", "call", "check", "bring-in"):
            if choice in legal:
                hand.act(choice)
                break
    return hand


def random_all_in(rng: random.Random, *, players: int, stacks: Sequence[int], folds: int = 0) -> Hand:
    """A hand dealt from a shuffled deck in which ``folds`` players fold at once and the rest get it in."""
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"][:players]
    hand = Hand(stakes=Stakes(), names=names, stacks=list(stacks), dealer=DeckDealer(Deck.shuffled(rng=rng)))
    folded = 0
    while not hand.is_over:
        legal = {a.value for a in hand.legal_actions()}
        if folded < folds and "fold" in legal:
            hand.act("fold")
            folded += 1
            continue
        for choice in ("raise", "bet", "complete", "call", "check", "bring-in"):
            if choice in legal:
                hand.act(choice)
                break
    return hand


def assert_close(ours: dict[str, float], theirs: dict[str, float], tolerance: float = 1e-9) -> None:
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert abs(ours[name] - theirs[name]) <= tolerance, (name, ours, theirs)


# ----------------------------------------------------------------------------- exact against brute force


def test_heads_up_sixth_street_equals_brute_force() -> None:
    hand = aggressive(make_hand({"ann": "Ah 2h 3h Ks 9d 8c 4c", "bob": "Kc Kd Qs Qh 7d 2s Jc"},
                                stacks={"ann": 12, "bob": 50}))
    result = all_in_equity(hand)[6]
    equity, scoop, deals = brute_force(hand, 6)
    assert result.exact and result.samples == deals == 40 * 39
    assert_close(dict(result.equity), equity)
    assert_close(dict(result.scoop), scoop)
    assert abs(sum(result.equity.values()) - 1) < 1e-12


@pytest.mark.parametrize("needs", [(1, 1), (1, 2), (2, 2), (3, 3), (2, 0), (4, 4)])
def test_heads_up_inclusion_exclusion_equals_walking_every_deal(needs: tuple[int, int]) -> None:
    rng = random.Random(sum(needs))
    cards = rng.sample(ALL_CARDS, 52)
    known = (tuple(cards[0:7 - needs[0]]), tuple(cards[7:14 - needs[1]]))
    spot = Spot(seats=(0, 1), names=("ann", "bob"), known=known, needs=needs, community=None, community_due=False,
                unseen=tuple(cards[14:24]), pots=(Pot(amount=31, eligible=(0, 1)),))  # a small deck, odd chips
    walked = count_exact(spot)
    counted = count_heads_up(spot)
    assert counted.weights == walked.weights and counted.deals == walked.deals == spot.deal_count()


def test_heads_up_fifth_street_is_exact_and_equals_walking_every_deal() -> None:
    hand = aggressive(make_hand({"ann": "Ah 2h 3h 5s 9d 8c 4c", "bob": "Kc Kd Qs Qh 7d 2s Jc"},
                                stacks={"ann": 9, "bob": 60}))
    assert sorted(all_in_equity(hand)) == [3, 4, 5, 6]
    spot = spot_at(hand, street=5)
    result = all_in_equity(hand)[5]
    assert result.exact and result.samples == 42 * 41 // 2 * 40 * 39 // 2
    assert count_heads_up(spot).weights == count_exact(spot).weights


def test_three_way_side_pot_equals_brute_force() -> None:
    # ann all in for 8, bob for 25, cat covers: a main pot for three and a side pot for two.
    hand = aggressive(make_hand({"ann": "Ah 2h 3c 4d 9s Kh Qc", "bob": "5d 6d 7s 8s 2c 2d Jh",
                                 "cat": "Kc Ks 9h Th 3d 7c As"}, stacks={"ann": 8, "bob": 25, "cat": 100}))
    pots = spot_at(hand, street=6).pots
    assert len(pots) == 2 and pots[1].eligible == (1, 2)
    for street in sorted(all_in_equity(hand)):
        if street < 6:
            continue
        result = all_in_equity(hand)[street]
        equity, scoop, deals = brute_force(hand, street)
        assert result.exact and result.samples == deals
        assert_close(dict(result.equity), equity)
        assert_close(dict(result.scoop), scoop)


def test_quartered_low_and_odd_chips_equal_brute_force() -> None:
    # bob and cat hold the same wheel ranks: their lows tie and quarter whenever one of them has no
    # better low; an odd pot (3 antes + bets) sends odd chips by rule 19.
    hand = aggressive(make_hand({"ann": "Kh Kd Ks Qs Qd 9c Tc", "bob": "Ac 2c 3c 4h 5h Jd 8d",
                                 "cat": "Ad 2d 3d 4s 5s Jh 8h"}, stacks={"ann": 41, "bob": 41, "cat": 41}))
    assert [(r.amount, r.high, r.low, dict(r.shares)) for r in hand.pot_results] == [
        (123, (0,), (1, 2), {0: 62, 1: 31, 2: 30})]  # the odd chip of the low half: bob's ace of clubs
    result = all_in_equity(hand)
    assert 6 in result
    equity, scoop, _ = brute_force(hand, 6)
    assert_close(dict(result[6].equity), equity)
    assert_close(dict(result[6].scoop), scoop)
    assert result[6].equity["bob"] > 0 and result[6].equity["cat"] > 0


def test_random_all_ins_equal_brute_force_on_sixth_street() -> None:
    rng = random.Random(23)
    checked = 0
    while checked < 4:
        players = rng.choice((2, 3))
        hand = random_all_in(rng, players=players, stacks=[rng.randrange(3, 40) for _ in range(players)])
        table = all_in_equity(hand)
        if 6 not in table:
            continue
        equity, scoop, deals = brute_force(hand, 6)
        assert table[6].exact and table[6].samples == deals
        assert_close(dict(table[6].equity), equity)
        assert_close(dict(table[6].scoop), scoop)
        checked += 1


def test_rule_10_community_card_on_seventh_street() -> None:
    # Eight players all in on third street: 48 cards by sixth street, 4 left for 8 players: a community card.
    rng = random.Random(10)
    hand = random_all_in(rng, players=8, stacks=[3] * 8)
    assert hand.community is not None
    table = all_in_equity(hand)
    assert sorted(table) == [3, 4, 5, 6]
    sixth = table[6]
    assert sixth.exact and sixth.samples == 4
    equity, scoop, deals = brute_force(hand, 6)
    assert deals == 4
    assert_close(dict(sixth.equity), equity)
    assert_close(dict(sixth.scoop), scoop)


# ----------------------------------------------------------------------------- invariants


def test_the_splitter_memo_divides_as_split_pot_does_with_ties_side_pots_and_odd_chips() -> None:
    # Values from a tiny range so that ties (and quartering) are common; nested side pots; odd amounts.
    rng = random.Random(99)
    for _ in range(30):
        count = rng.choice((2, 3, 4))
        seats = tuple(sorted(rng.sample(range(6), count)))
        pots = [Pot(amount=rng.randrange(3, 40), eligible=seats)]
        if count > 2:
            pots.append(Pot(amount=rng.randrange(1, 30), eligible=seats[1:]))
        spot = Spot(seats=seats, names=tuple(str(s) for s in seats), known=((),) * count, needs=(0,) * count,
                    community=None, community_due=False, unseen=(), pots=tuple(pots))
        splitter = Splitter(spot)
        for _ in range(200):
            odd_high = rng.sample(range(52), count)
            odd_low = rng.sample(range(60), count)
            outcomes = tuple((rng.randrange(3), rng.choice((None, 1, 2)), odd_high[i], odd_low[i])
                             for i in range(count))
            high = {seats[i]: outcomes[i][0] for i in range(count)}
            low = {seats[i]: outcomes[i][1] for i in range(count)}
            high_order = sorted(seats, key=lambda s: -outcomes[seats.index(s)][2])
            low_order = sorted(seats, key=lambda s: outcomes[seats.index(s)][3])
            expected = dict.fromkeys(seats, 0)
            for pot in pots:
                for seat, chips in split_pot(pot=pot, high=high, low=low, high_order=high_order,
                                             low_order=low_order).shares.items():
                    expected[seat] += chips
            assert splitter.split(outcomes).chips == tuple(expected[s] for s in seats)



def test_seventh_street_is_the_showdown() -> None:
    rng = random.Random(7)
    for _ in range(10):
        players = rng.choice((2, 3, 4))
        hand = random_all_in(rng, players=players, stacks=[rng.randrange(3, 60) for _ in range(players)])
        if len(hand.live_seats) < 2:
            continue
        result = equity_after(hand_file_of(hand), street=7)
        total = sum(hand.contributed)
        won = {hand.names[s]: sum(r.shares.get(s, 0) for r in hand.pot_results) / total for s in hand.live_seats}
        assert result.exact and result.samples == 1
        assert_close(dict(result.equity), won)


def test_equity_sums_to_one_and_same_hand_same_numbers() -> None:
    rng = random.Random(3)
    for _ in range(4):
        players = rng.choice((2, 3, 4))
        hand = random_all_in(rng, players=players, stacks=[rng.randrange(3, 80) for _ in range(players)])
        table = all_in_equity(hand)
        again = all_in_equity(replay_hand(HandFile.from_json(hand_file_of(hand).to_json())))
        assert table == again  # sampled streets too: the seed comes from the spot
        for street, result in table.items():
            assert abs(sum(result.equity.values()) - 1) < 1e-9
            assert all(0 <= v <= 1 for v in result.scoop.values())
            assert result == equity_after(hand_file_of(hand), street=street)
            assert result.exact == (result.std_error == 0.0)


def test_sampled_within_three_standard_errors_of_exact() -> None:
    hand = aggressive(make_hand({"ann": "Ah 2h 3c 4d 9s Kh Qc", "bob": "5d 6d 7s 8s 2c 2d Jh",
                                 "cat": "Kc Ks 9h Th 3d 7c As"}, stacks={"ann": 8, "bob": 25, "cat": 100}))
    spot = spot_at(hand, street=6)
    exact = equity_of_spot(spot, street=6)
    sampled = equity_of_spot(spot, street=6, budget=0, samples=20_000)
    assert exact.exact and not sampled.exact and sampled.samples == 20_000 and sampled.std_error > 0
    for name, value in exact.equity.items():
        assert abs(sampled.equity[name] - value) <= 3 * sampled.std_error


def test_fewer_than_two_live_hands_and_street_not_dealt() -> None:
    from engine.equity import EquityError

    folded = make_hand({"ann": "Ah 2h 3h", "bob": "Kc Kd 2c"})
    folded.act("bring-in")
    folded.act("fold")
    with pytest.raises(EquityError, match="fewer than two"):
        spot_at(folded, street=3)
    assert all_in_equity(folded) == {}
    running = make_hand({"ann": "Ah 2h 3h 4h", "bob": "Kc Kd 2c 5d"})
    with pytest.raises(EquityError, match="street 5 was not dealt"):
        equity_after(hand_file_of(running), street=5)
    played = make_hand({"ann": "Ah 2h 3h 4h 5h 6h 7h", "bob": "Kc Kd 2c 5d 9c 9d 9s"}, stacks=500)
    while not played.is_over:
        played.act(next(a for a in ("bring-in", "call", "check") if played.can(a)))
    assert all_in_equity(played) == {}  # betting went on to seventh street: nothing to show


# ----------------------------------------------------------------------------- poker-equity


def _single_pot_spot(rng: random.Random, *, players: int, street: int, dead: int) -> Spot:
    cards = rng.sample(ALL_CARDS, 52)
    known = tuple(tuple(cards[i * 7:i * 7 + street]) for i in range(players))
    gone = {c for k in known for c in k} | set(cards[52 - dead:])
    return Spot(seats=tuple(range(players)), names=tuple(f"p{i}" for i in range(players)), known=known,
                needs=(7 - street,) * players, community=None, community_due=False,
                unseen=tuple(c for c in ALL_CARDS if c not in gone),
                pots=(Pot(amount=240, eligible=tuple(range(players))),))  # 240: every split is whole chips


def test_agrees_with_poker_equity_on_random_single_pot_spots() -> None:
    pe = pytest.importorskip("poker_equity")
    rng = random.Random(2026)
    for trial in range(12):
        players, street = rng.choice(((2, 5), (2, 6), (3, 6)))
        dead = trial % 3
        spot = _single_pot_spot(rng, players=players, street=street, dead=dead)
        ours = equity_of_spot(spot, street=street)
        gone = set(ALL_CARDS) - set(spot.unseen) - {c for k in spot.known for c in k}
        theirs = pe.exact_from_text("stud_hi_lo", ["".join(map(str, k)) for k in spot.known], "",
                                    " ".join(map(str, gone)))
        assert ours.exact and theirs["exact"]
        for i, name in enumerate(spot.names):
            assert abs(ours.equity[name] - theirs["players"][i]["equity"]) < 1e-9
            assert abs(ours.scoop[name] - theirs["players"][i]["scoop"]) < 1e-9


def test_sampled_agrees_with_poker_equity_within_three_standard_errors() -> None:
    pe = pytest.importorskip("poker_equity")
    rng = random.Random(4)
    for players, street in ((2, 3), (3, 4)):
        spot = _single_pot_spot(rng, players=players, street=street, dead=0)
        ours = equity_of_spot(spot, street=street)
        theirs = pe.chunk_from_text("stud_hi_lo", ["".join(map(str, k)) for k in spot.known], samples=400_000, seed=1)
        assert not ours.exact
        for i, name in enumerate(spot.names):
            their = theirs["players"][i]
            assert abs(ours.equity[name] - their["equity"]) <= 3 * (ours.std_error + their["std_error"])


# ----------------------------------------------------------------------------- the command line


def _hand_json(tmp_path: Path) -> Path:
    hand = aggressive(make_hand({"ann": "Ah 2h 3h Ks 9d 8c 4c", "bob": "Kc Kd Qs Qh 7d 2s Jc"},
                                stacks={"ann": 12, "bob": 50}))
    path = tmp_path / "hand.json"
    path.write_text(hand_file_of(hand).to_json())
    return path


def test_cli_prints_the_equity_json(tmp_path: Path) -> None:
    path = _hand_json(tmp_path)
    done = subprocess.run([sys.executable, "-m", "engine.equity", str(path), "--street", "6"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["exact"] is True and data["samples"] == 1560 and data["std_error"] == 0.0
    assert set(data["equity"]) == {"ann", "bob"} and abs(sum(data["equity"].values()) - 1) < 1e-9


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--street", "9"], "is not 3 to 7"),
        (["--street", "x"], "is not 3 to 7"),
        ([], "usage"),
        (["--street"], "usage"),
    ],
)
def test_cli_bad_arguments_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    status, out = run([str(_hand_json(tmp_path)), *args])
    assert status == 2 and message in json.loads(out)["error"] and "\n" not in out


def test_cli_bad_files_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert run([str(bad), "--street", "5"])[0] == 2
    assert run([str(tmp_path / "missing.json"), "--street", "5"])[0] == 2
    folded = make_hand({"ann": "Ah 2h 3h", "bob": "Kc Kd 2c"})
    folded.act("bring-in")
    folded.act("fold")
    one = tmp_path / "one.json"
    one.write_text(hand_file_of(folded).to_json())
    status, out = run([str(one), "--street", "3"])
    assert status == 2 and "fewer than two" in json.loads(out)["error"]
    status, out = run([str(one), "--street", "4"])
    assert status == 2 and "not dealt" in json.loads(out)["error"]
    done = subprocess.run([sys.executable, "-m", "engine.equity", str(bad), "--street", "5"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout
