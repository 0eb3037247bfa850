"""The PokerStars export re-read by a strict reader: every line in the grammar, the money adding up,
and the same actions and payouts as the engine, over several hundred random hands."""

from __future__ import annotations

import os
import random
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from export_hands import example_hand, random_hand, random_time
from pokerstars_reader import ReadError, ReadHand, read_file, read_hand, split_hands

from bot.history.exports import ExportError, HandMeta, pokerstars_text, safe_names
from bot.history.exports.common import written_names
from engine import Action, Hand
from engine.events import ActionTaken, AntePosted, HandShown, UncalledReturned
from engine.games import Game
from engine.lowball import razz_ranks, razz_value

HANDS = int(os.environ.get("STUD_EXPORT_HANDS", "600"))  # the fast tier: fewer (tests/conftest.py)


def _check(hand: Hand, meta: HandMeta, read: ReadHand) -> None:
    names = written_names(hand, meta)
    who = dict(zip(hand.names, names))
    assert read.chatter == 0
    assert read.play_money and read.number == meta.number
    assert (read.small, read.big) == (hand.stakes.small_bet, hand.stakes.big_bet)
    assert read.seats == [(i + 1, names[i], hand.starting_stacks[i]) for i in range(hand.seat_count)]
    assert len(set(read.names)) == hand.seat_count
    antes = {who[hand.names[e.seat]]: e.amount for e in hand.events if isinstance(e, AntePosted) and e.amount}
    assert read.antes == antes
    # The viewer, and only the viewer, shows three cards on third street; their down cards are theirs.
    assert read.viewer == (None if meta.viewer is None else who[meta.viewer])
    for seat, name in enumerate(names):
        expected = [str(c) for c in (hand.cards[seat] if meta.viewer == hand.names[seat] else hand.up_cards(seat))]
        got = read.up.get(name, [])
        if hand.community is not None and meta.viewer == hand.names[seat]:
            expected = expected[:6]
        assert got == expected, (name, got, expected)
    # Every action, its chips and its all-in mark.
    log = [e for e in hand.events if isinstance(e, ActionTaken)]
    assert len(read.acts) == len(log)
    for act, e in zip(read.acts, log):
        verb = {Action.COMPLETE: ("bet", "raise"), Action.BET: ("bet",), Action.RAISE: ("raise",),
                Action.BET_BIG: ("bet",), Action.RAISE_BIG: ("raise",)}.get(e.action, (e.action.value,))
        assert (act.street, act.name, act.added, act.to, act.all_in) == (
            e.street, names[e.seat], e.amount, e.total, e.all_in), (act, e)
        assert act.verb in verb, (act, e)
    assert read.bring_in() == (None if hand.bring_in_seat is None else names[hand.bring_in_seat])
    assert read.uncalled == [(names[e.seat], e.amount) for e in hand.events if isinstance(e, UncalledReturned)]
    # The money: collected adds up to the pot, the pot to what went in less what came back.
    paid = {names[s]: 0 for s in range(hand.seat_count)}
    for r in hand.pot_results:
        for s, c in r.shares.items():
            paid[names[s]] += c
    assert read.collected_by() == {n: c for n, c in paid.items() if c}
    assert sum(a for _, a, _ in read.collected) == read.total == sum(hand.contributed) == sum(read.pots)
    put_in = sum(read.antes.values()) + sum(a.added for a in read.acts)
    assert read.total == put_in - sum(a for _, a in read.uncalled)
    assert read.rake == 0
    if len(hand.pot_results) > 1:
        assert read.pots == [r.amount for r in hand.pot_results]
    labels = {p for _, _, p in read.collected}
    assert labels <= ({"pot"} if len(hand.pot_results) == 1 else {"main pot", "side pot"} | {
        f"side pot-{i}" for i in range(1, len(hand.pot_results))})
    # The showdown: every hand shown, in the engine's order; the summary agrees.
    shown = [e for e in hand.events if isinstance(e, HandShown)]
    assert read.showdown == bool(shown)
    assert read.shown == {names[e.seat]: [str(c) for c in e.all_cards] for e in shown}
    assert read.no_low == (hand.game is Game.STUD8 and bool(shown) and not any(r.low for r in hand.pot_results))
    assert read.game == hand.game.value and read.double_bet == hand.double_bet_allowed
    for e in shown:  # the words of the game (the reader checks their form); a razz low's ranks are its value's
        if hand.game is Game.RAZZ:
            ranks = [{"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}.get(r) or int(r)
                     for r in read.words[names[e.seat]].removeprefix("Lo: ").split(",")]
            assert ranks == razz_ranks(razz_value(e.all_cards))
    for seat, name in enumerate(names):
        kind, value, _ = read.summary[name]
        if hand.folded[seat]:
            assert kind == "folded"
        elif shown:
            assert (kind, value) == (("won", paid[name]) if paid[name] else ("lost", 0))
        else:
            assert (kind, value) == ("collected", paid[name])


def test_random_hands_export_and_read_back(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(12)
    seen: Counter[str] = Counter()
    texts = []
    for number in range(1, HANDS + 1):
        players = 8 if number % 10 == 0 else None
        hand = random_hand(rng, players=players, fold_weight=0.0 if number % 10 == 0 else 0.25)
        viewer = rng.choice([None, *hand.names])
        meta = HandMeta(number=number, table=rng.choice(["Kitchen", "O'Brien's room", "  x  "]),
                        played_at=random_time(rng), viewer=viewer, names=safe_names(hand.names))
        text = pokerstars_text(hand, meta)
        texts.append(text)
        _check(hand, meta, read_hand(split_hands(text)[0]))
        seen["all-in"] += any(hand.is_all_in(s) for s in range(hand.seat_count))
        seen["side pots"] += len(hand.pot_results) > 1
        seen["community card"] += hand.community is not None
        seen["capped"] += "Betting is capped" in text
        seen["uncalled"] += "Uncalled bet" in text
        seen["won without showdown"] += "doesn't show hand" in text
        seen["showdown"] += "*** SHOW DOWN ***" in text
        seen["no low"] += "No low hand qualified" in text
        seen["three or more pots"] += "side pot-2" in text
    # One file of all the hands: the reader reads every one of them.
    assert len(read_file("\n\n\n".join(texts) + "\n")) == HANDS
    with capsys.disabled():
        print(f"\nPokerStars export, {HANDS} random hands: " + ", ".join(f"{k} {v}" for k, v in sorted(seen.items())))
    for case in ("all-in", "side pots", "community card", "capped", "uncalled", "won without showdown", "showdown",
                 "no low", "three or more pots"):
        assert seen[case] > 0, case


@pytest.mark.parametrize("game", [Game.STUD, Game.RAZZ])
def test_random_razz_and_stud_hands_export_and_read_back(game: Game, capsys: pytest.CaptureFixture[str]) -> None:
    """G9: ``Razz Limit`` and ``7 Card Stud Limit`` hands read back by the strict reader with the same
    actions and payouts; Stud's double bet (G5) is a plain ``bets``/``raises`` under the site's
    ``Pair on board - a double bet is allowed``; no ``No low hand qualified`` outside Stud Hi/Lo."""
    rng = random.Random(21)
    seen: Counter[str] = Counter()
    texts = []
    count = max(HANDS // 3, 60)
    for number in range(1, count + 1):
        players = 8 if number % 10 == 0 else None
        hand = random_hand(rng, players=players, fold_weight=0.0 if number % 10 == 0 else 0.25, game=game)
        meta = HandMeta(number=number, table="Kitchen", played_at=random_time(rng),
                        viewer=rng.choice([None, *hand.names]), names=safe_names(hand.names))
        text = pokerstars_text(hand, meta)
        texts.append(text)
        _check(hand, meta, read_hand(split_hands(text)[0]))
        seen["showdown"] += "*** SHOW DOWN ***" in text
        seen["community card"] += hand.community is not None
        seen["pair on board"] += hand.double_bet_allowed
        seen["bet-big"] += any(isinstance(e, ActionTaken) and e.action in (Action.BET_BIG, Action.RAISE_BIG)
                               for e in hand.events)
        assert "No low hand qualified" not in text
    assert len(read_file("\n\n\n".join(texts) + "\n")) == count
    if samples := os.environ.get("STUDBOT_GAME_SAMPLES"):  # for scripts/fpdb_import.py
        Path(samples).mkdir(parents=True, exist_ok=True)
        (Path(samples) / f"{game}-random.txt").write_text("\n\n\n".join(texts) + "\n")
    with capsys.disabled():
        print(f"\nPokerStars export, {count} random {game} hands: "
              + ", ".join(f"{k} {v}" for k, v in sorted(seen.items())))
    assert seen["showdown"] and seen["community card"]
    if game is Game.STUD:
        assert seen["pair on board"] and seen["bet-big"]


def test_the_example_hand_line_by_line() -> None:
    hand = example_hand()
    meta = HandMeta(number=42, table="Kitchen", played_at=datetime(2026, 7, 1, 15, 0, 9, tzinfo=UTC), viewer="bob")
    text = pokerstars_text(hand, meta)
    lines = text.splitlines()
    assert lines[0] == "PokerStars Hand #42:  7 Card Stud Hi/Lo Limit (5/10) - 2026/07/01 11:00:09 ET"  # EDT
    assert "Dealt to bob [Qd Qs 2c]" in lines and "Dealt to ann [6d]" in lines
    assert "Dealt to bob [Qd Qs 2c Td 7s Ts] [5c]" in lines
    assert not any(line.startswith("Dealt to ann [Ah 3c") for line in lines)  # ann's down cards stay hers
    assert lines[lines.index("*** SHOW DOWN ***") + 1:] [:8] == [
        "bob: shows [Qd Qs 2c Td 7s Ts 5c] (HI: two pair, Queens and Tens)",
        "cat: shows [Kd Ks Kh 3s 9h Jd 2h] (HI: three of a kind, Kings)",
        "ann: shows [Ah 3c 6d 6h 2s 8d Jc] (HI: a pair of Sixes; LO: 8,6,3,2,A)",
        "bob collected 10 from side pot",
        "ann collected 10 from side pot",
        "cat collected 17 from main pot",
        "ann collected 16 from main pot",
        "*** SUMMARY ***",
    ]
    assert "Total pot 53 Main pot 33. Side pot 20. | Rake 0" in lines
    assert "Seat 3: cat showed [Kd Ks Kh 3s 9h Jd 2h] and won (17) with HI: three of a kind, Kings" in lines


def test_winter_time_is_eastern_standard() -> None:
    hand = example_hand()
    meta = HandMeta(number=1, table="t", played_at=datetime(2026, 1, 2, 4, 5, 6, tzinfo=UTC))
    assert pokerstars_text(hand, meta).splitlines()[0].endswith(" - 2026/01/01 23:05:06 ET")


def test_names_are_safe_and_the_same_in_every_hand_of_an_export() -> None:
    names = safe_names(["a:b", "a_b", "[x]", " x ", "x"])
    assert names == {"a_b": "a_b", "x": "x", "a:b": "a_b_2", "[x]": "x_2", " x ": "x_3"}
    rng = random.Random(3)
    hand = random_hand(rng, players=3)
    meta = HandMeta(number=1, table="t", played_at=datetime(2026, 1, 1, tzinfo=UTC), names=names)
    for line in pokerstars_text(hand, meta).splitlines():
        assert ": :" not in line


def test_bad_export_requests_are_refused() -> None:
    hand = example_hand()
    with pytest.raises(ExportError):
        HandMeta(number=1, table="t", played_at=datetime(2026, 1, 1))  # naive time
    with pytest.raises(ExportError):
        pokerstars_text(hand, HandMeta(number=1, table="t", played_at=datetime(2026, 1, 1, tzinfo=UTC),
                                       viewer="zed"))


def test_the_reader_refuses_an_unknown_line() -> None:
    hand = example_hand()
    text = pokerstars_text(hand, HandMeta(number=1, table="t", played_at=datetime(2026, 1, 1, tzinfo=UTC)))
    lines = text.splitlines()
    lines.insert(12, "bob: raises to 10")
    with pytest.raises(ReadError):
        read_hand(lines)
