"""The PHH export loaded by PokerKit 0.7.7 (``HandHistory.loads``) and replayed to its end.

Random hands are played by our engine with PokerKit's own settings (``heads_up_cap: true``,
``short_all_in: "full"``), exported from a random viewer's seat (other players' unseen down
cards are ``??``), loaded with PokerKit and replayed action by action with nothing repaired:
PokerKit's own ``HandHistory`` iteration would "repair" an action it refuses by checking or
folding for whoever it thinks must act, which could hide a difference. The final stacks must
equal ours. Where they do not, or PokerKit refuses an action, the hand must fall in one of the
differences RULES.md lists (tests/support/differential.py's split model explains the payoffs); it is
counted there, and anything else fails the test.
"""

from __future__ import annotations

import os
import random
import warnings
from collections import Counter
from datetime import UTC, datetime

import pytest
from differential import (
    CATEGORIES,
    ODD_CHIP_BY_SEAT,
    SEVENTH_OPENER,
    SHORT_ALL_IN,
    explain_payoffs,
)
from export_hands import example_hand, random_hand, random_time
from helpers import make_hand, play
from pokerkit import HandHistory
from pokerkit.notation import parse_action
from pokerkit.state import State

from bot.history.exports import HandMeta, phh_text, safe_names
from bot.history.exports.phh import phh_steps, pokerkit_replayable
from engine import Action, Hand, Options, ShortAllIn
from engine.events import ActionTaken, CardDealt, CommunityCardDealt, Event
from engine.games import Game

HANDS = int(os.environ.get("STUD_EXPORT_HANDS", "600"))  # the fast tier: fewer (tests/conftest.py)
OPTIONS = Options(heads_up_cap=True, short_all_in=ShortAllIn.FULL)
COMMUNITY = "community card at once; PokerKit recycles mucked cards first (rule 10)"
AGREED = "same final stacks"


class Unexplained(AssertionError):
    """PokerKit and the bot differ where RULES.md lists no difference."""


def pokerkit_replay(text: str) -> tuple[list[int] | None, int | None, str]:
    """Load with PokerKit and play every action strictly: (final stacks, None, "") or
    (None, index of the action PokerKit refused, its message)."""
    hh = HandHistory.loads(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        state = hh.create_state()
        for index, action in enumerate(hh.actions):
            while True:
                try:
                    parse_action(state, action)
                    break
                except ValueError as exc:
                    if _killed_show(state, action):
                        break  # PokerKit mucked (killed) a hand that can win nothing: no chips move
                    if not _step(state):
                        return None, index, str(exc)
        while state.status and _step(state):
            pass
    if state.status:
        return None, len(hh.actions), "PokerKit's hand is not over after the last action"
    return list(state.stacks), None, ""


def _killed_show(state: State, action: str) -> bool:
    """``action`` shows the hand of a player whose hand PokerKit's automatic hand killing already mucked."""
    words = action.split()
    return len(words) >= 2 and words[1] == "sm" and not state.statuses[int(words[0][1:]) - 1]


def _step(state: State) -> bool:
    """One step that is nobody's decision (the automations HandHistory leaves to its reader)."""
    if state.can_burn_card():
        state.burn_card("??")
        return True
    return False


def _refusal_category(hand: Hand, event: Event) -> str | None:
    """Which listed difference explains PokerKit refusing the action that writes ``event``."""
    if isinstance(event, CommunityCardDealt) or (isinstance(event, CardDealt) and event.street == 7
                                                 and hand.community is not None):
        return COMMUNITY
    if not isinstance(event, ActionTaken):
        return None
    rounds = [e for e in hand.events if isinstance(e, ActionTaken) and e.street == event.street]
    before = rounds[: rounds.index(event)]
    opener = hand.first_actors.get(6)
    if event.street == 7 and not before and opener is not None and (
            hand.folded[opener] or _all_in_by(hand, opener, street=6)):
        return SEVENTH_OPENER
    bet = 0
    for e in before:
        if e.action in (Action.COMPLETE, Action.BET, Action.RAISE):
            size = e.total - bet if e.action is Action.RAISE else e.total
            if size < hand.stakes.limit(e.street):
                return SHORT_ALL_IN
        if e.action is not Action.FOLD:
            bet = max(bet, e.total)
    return None


def _all_in_by(hand: Hand, seat: int, *, street: int) -> bool:
    """The seat had no chips left after ``street``'s betting."""
    put_in = sum(e.amount for e in hand.events if isinstance(e, ActionTaken) and e.seat == seat
                 and e.street <= street)
    ante = min(hand.stakes.ante, hand.starting_stacks[seat])
    return put_in + ante >= hand.starting_stacks[seat] and hand.returned[seat] == 0


def classify(hand: Hand, meta: HandMeta) -> tuple[str, ...]:
    """The categories of one hand: (AGREED,) or the listed differences met; Unexplained otherwise."""
    text = phh_text(hand, meta)
    stacks, refused, why = pokerkit_replay(text)
    if stacks is None:
        assert refused is not None
        viewer = None if meta.viewer is None else hand.names.index(meta.viewer)
        steps = phh_steps(hand, viewer)
        category = _refusal_category(hand, steps[refused][1]) if refused < len(steps) else None
        if category is None:
            raise Unexplained(f"PokerKit refused action {refused} ({why}):\n{text}")
        return (category,)
    if stacks == hand.stacks:
        return (AGREED,)
    pk = [end - start for end, start in zip(stacks, hand.starting_stacks)]
    quirks = explain_payoffs(hand, pk)
    if quirks is None:
        raise Unexplained(f"final stacks {stacks} vs ours {hand.stacks}, unexplained:\n{text}")
    return quirks


def test_pokerkit_replays_exported_hands_to_the_bot_stacks(capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(2026)
    tally: Counter[str] = Counter()
    side_pots = all_in = 0
    for number in range(1, HANDS + 1):
        eight = number % 8 == 0
        hand = random_hand(rng, options=OPTIONS, players=8 if eight else rng.randint(2, 7),
                           fold_weight=0.0 if eight else 0.25)
        meta = HandMeta(number=number, table="Kitchen", played_at=random_time(rng),
                        viewer=rng.choice([None, *hand.names]), names=safe_names(hand.names))
        for category in classify(hand, meta):
            tally[category] += 1
        side_pots += len(hand.pot_results) > 1
        all_in += any(hand.is_all_in(s) for s in range(hand.seat_count))
    with capsys.disabled():
        print(f"\nPHH through PokerKit, {HANDS} random hands ({all_in} with an all-in, {side_pots} with side pots):")
        for name in (AGREED, *CATEGORIES, COMMUNITY):
            print(f"  {tally[name]:5d}  {name}")
    assert set(tally) <= {AGREED, COMMUNITY, *CATEGORIES}
    assert tally[AGREED] > HANDS // 2
    assert side_pots > HANDS // 4 and tally[COMMUNITY] > 0


def _random_game_hands(game: Game, options: Options, seed: int) -> list[tuple[Hand, HandMeta]]:
    rng = random.Random(seed)
    out = []
    for number in range(1, max(HANDS // 3, 80) + 1):
        eight = number % 8 == 0
        hand = random_hand(rng, options=options, players=8 if eight else rng.randint(2, 7),
                           fold_weight=0.0 if eight else 0.25, game=game)
        out.append((hand, HandMeta(number=number, table="Kitchen", played_at=random_time(rng),
                                   viewer=rng.choice([None, *hand.names]), names=safe_names(hand.names))))
    return out


@pytest.mark.parametrize(("game", "variant"), [(Game.RAZZ, "FR"), (Game.STUD, "F7S")])
def test_pokerkit_replays_razz_and_stud_hands_to_the_bot_stacks(
        game: Game, variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """G9: Razz as ``FR``, Stud as ``F7S`` (played without the open pair's double bet, as PokerKit
    plays it: GAMES.md), replayed by PokerKit to our stacks but for the differences RULES.md lists."""
    tally: Counter[str] = Counter()
    hands = _random_game_hands(game, Options(heads_up_cap=True, short_all_in=ShortAllIn.FULL,
                                             open_pair_double=False), seed=21)
    for hand, meta in hands:
        assert HandHistory.loads(phh_text(hand, meta)).variant == variant
        for category in classify(hand, meta):
            tally[category] += 1
    with capsys.disabled():
        print(f"\nPHH {variant} through PokerKit, {len(hands)} random hands: "
              + ", ".join(f"{v} {k}" for k, v in tally.most_common()))
    assert set(tally) <= {AGREED, COMMUNITY, *CATEGORIES}
    assert tally[AGREED] > len(hands) // 2


def test_a_stud_double_bet_is_written_as_played_and_only_hands_without_one_claim_pokerkit() -> None:
    """G5 and PokerKit: with the open pair's double bet on (our default), a Stud hand in which it
    was made is written with ``cbr`` to the big bet, which PokerKit's ``F7S`` refuses at that very
    action (``pokerkit_replayable`` says so); every other hand replays as above."""
    doubled = plain = at_big = 0
    for hand, meta in _random_game_hands(Game.STUD, OPTIONS, seed=5):
        if pokerkit_replayable(hand):
            plain += 1
            assert set(classify(hand, meta)) <= {AGREED, COMMUNITY, *CATEGORIES}
            continue
        doubled += 1
        viewer = None if meta.viewer is None else hand.names.index(meta.viewer)
        steps = phh_steps(hand, viewer)
        first_big = next(i for i, (_, e) in enumerate(steps)
                         if isinstance(e, ActionTaken) and e.action in (Action.BET_BIG, Action.RAISE_BIG))
        assert steps[first_big][0].endswith(f" cbr {steps[first_big][1].total}")
        stacks, refused, _ = pokerkit_replay(phh_text(hand, meta))
        assert stacks is None and refused is not None and refused <= first_big
        if refused < first_big:  # refused earlier, for a difference RULES.md lists
            assert _refusal_category(hand, steps[refused][1]) is not None
        else:
            at_big += 1
    assert doubled > 0 and plain > doubled and at_big > doubled // 2


def test_the_example_hand_replays_in_pokerkit() -> None:
    hand = example_hand()
    meta = HandMeta(number=42, table="Kitchen", played_at=datetime(2026, 12, 1, 15, tzinfo=UTC), viewer="ann")
    text = phh_text(hand, meta)
    hh = HandHistory.loads(text)
    assert (hh.variant, hh.antes, hh.bring_in, hh.small_bet, hh.big_bet) == ("F7S/8", [1, 1, 1], 2, 5, 10)
    assert hh.players == ["ann", "bob", "cat"] and hh.hand == 42 and hh.table == "Kitchen"
    assert "d dh p2 ????2c" in hh.actions and "d dh p1 Ah3c6d" in hh.actions  # only the viewer's down cards
    assert pokerkit_replay(text) == ([105, 89, 17], None, "")
    assert classify(hand, meta) == (AGREED,)


def _finish(hand: Hand) -> Hand:
    while not hand.is_over:
        hand.act(Action.CHECK if hand.can_check() else Action.CALL)
    return hand


def _scripted(cards: dict[str, str], actions: list[str], stacks: dict[str, int] | None = None) -> Hand:
    return _finish(play(make_hand(cards, stacks={n: (stacks or {}).get(n, 100) for n in cards}, options=OPTIONS),
                        *actions))


def _meta(hand: Hand) -> HandMeta:
    return HandMeta(number=1, table="t", played_at=datetime(2026, 1, 1, tzinfo=UTC), viewer=hand.names[0])


def test_a_seventh_street_opener_who_folded_is_its_own_category() -> None:
    cards = {"ann": "Ac Ad 9h 9d 2s 3s 4c", "bob": "Kc Kd 2c Qs Qd 6s 8c", "cat": "Qc Qh Th Td Jh Jc 7d"}
    hand = _scripted(cards, ["bring-in", "call", "call", *["check"] * 6, "check", "bet", "call", "fold"])
    assert hand.first_actors[7] == 0  # rule 9: clockwise from cat; PokerKit opens with bob's queens
    assert classify(hand, _meta(hand)) == (SEVENTH_OPENER,)


def test_a_short_all_in_bet_completed_is_its_own_category() -> None:
    cards = {"ann": "Ac Ad 2h 3h 7d 8d 9d", "bob": "Qc Qd 5c 6d Tc Jc Kd", "cat": "Jd Td 9h 9s 4c 4d 4s"}
    hand = _scripted(cards, ["bring-in", "call", "call", "bet", "complete"], stacks={"cat": 5})
    assert classify(hand, _meta(hand)) == (SHORT_ALL_IN,)


def test_an_odd_chip_by_suit_is_explained_by_pokerkit_giving_it_by_seat() -> None:
    cards = {"ann": "9d Td Jh Qs Kh 2h 4c", "bob": "9c Tc Jd Qh Ks 2d 3d", "cat": "Ac Ad As 5c 6c 7c 8c"}
    hand = _scripted(cards, ["bring-in", "fold", "call", *["check"] * 8])
    assert classify(hand, _meta(hand)) == (ODD_CHIP_BY_SEAT,)
