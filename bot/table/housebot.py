"""The house bot: a computer player for the table's ``addbot`` command.

:func:`choose_action` picks a legal action for the player to act, reading only what
that player may know: their own cards (down cards included), every up card on the
table (folded players' too), the community card, the pot, the bet to call, the
street and who is still in. It never reads another player's down cards, nor the
hand's events (whose ``CardDealt`` entries carry them).

Each game is played for what wins in it (GAMES.md): Stud Hi-Lo for both halves (below), Stud for
the high hand alone (the low tiers and the low share left out; with a strong hand it makes G5's
double bet where it is open), Razz for the ace-to-five low (:mod:`bot.table.razzbot`: low cards are
good, pairs and high cards are bad, each opponent's board read as a low).

The strategy is a small, fast heuristic for limit Seven Card Stud Hi-Lo:

* **Third street** sorts the three cards into tiers: rolled-up trips, big pairs and
  A-2-3-like lows are premium (complete, raise); other big pairs, pairs with an ace,
  three low cards with an ace or very low are strong; other three-card lows, high
  three-flushes and high three-straights are playable; junk folds to a bet. Dead
  cards among the other door cards weaken pairs and lows.
* **Fourth to seventh street** estimate the share of the pot the hand can expect: a
  high part (made hand, flush and straight draws, against what each opponent's board
  shows) and a low part (made low or the chance to make one from the live low cards,
  against the opponents whose boards can still make a low), half the pot each when a
  low is likely. It bets or raises when the share beats a threshold that falls with
  the number of opponents, calls when the share beats the pot odds, folds otherwise.
* ``rng`` only decides the close cases (a ramp around each threshold), so a given
  seed always gives the same decision and clear cases never depend on it.

>>> import random
>>> from engine import Hand, ScriptedDealer, Stakes, parse_cards
>>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[100, 100],
...             dealer=ScriptedDealer(cards=[parse_cards("Kd 9s 2c"), parse_cards("Ah 2h 3h")]))
>>> choose_action(hand, rng=random.Random(1)).value  # ann brings in with junk
'bring-in'
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence

from bot.table import razzbot
from bot.table.odds import p_make as _p_make
from engine import Action, Card, Hand
from engine.evaluate import HandCategory, category_of, high_value, low_value
from engine.games import Game

__all__ = ["choose_action"]

log = logging.getLogger(__name__)

_FOLD, _CALL, _RAISE = 0, 1, 2  # intents, mapped onto legal actions at the end

_UNUSED = 52


def choose_action(hand: Hand, *, rng: random.Random) -> Action:
    """A legal action for ``hand.actor``, from what that player may know.

    Deterministic for a given state of ``rng``. Never raises: if the strategy itself
    fails, the failure is logged and the player checks, or posts the bring-in, or
    folds (the engine's :meth:`~engine.game.Hand.default_action`). When nobody must
    act (the hand is over) nothing is legal and it returns ``Action.CHECK``.
    """
    try:
        legal = hand.legal_actions()
    except Exception:  # pragma: no cover - the engine does not raise here
        log.exception("house bot: cannot read the legal actions")
        return Action.CHECK
    if not legal:
        return Action.CHECK
    if len(legal) == 1:
        return legal[0]
    try:
        action = _decide(hand, legal, rng)
        if action in legal:
            return action
        log.error("house bot chose %s, not among %s", action, legal)  # pragma: no cover
    except Exception:
        log.exception("house bot failed on %r", hand)
    return _safe(legal)


def _safe(legal: Sequence[Action]) -> Action:
    for action in (Action.BRING_IN, Action.CHECK, Action.FOLD, Action.CALL):
        if action in legal:
            return action
    return legal[0]  # pragma: no cover - some action above is always legal


def _to_action(intent: int, legal: Sequence[Action]) -> Action:
    """The legal action closest to an intent (never a fold when checking is free)."""
    order: tuple[Action, ...]
    if intent == _RAISE:
        order = (Action.RAISE, Action.COMPLETE, Action.BET, Action.CALL, Action.CHECK, Action.BRING_IN)
    elif intent == _CALL:
        order = (Action.CALL, Action.CHECK, Action.BRING_IN)
    else:
        order = (Action.CHECK, Action.FOLD, Action.BRING_IN)
    for action in order:
        if action in legal:
            return action
    return _safe(legal)  # pragma: no cover


def _ramp(value: float, threshold: float, width: float, rng: random.Random) -> bool:
    """True when ``value`` clearly beats ``threshold``; random within ``width`` of it."""
    p = (value - threshold) / width + 0.5
    if p >= 1.0:
        return True
    if p <= 0.0:
        return False
    return rng.random() < p


# ------------------------------------------------------------------ what the player knows


class _View:
    """Everything the acting player may know, gathered once per decision."""

    __slots__ = (
        "boards", "community", "full_bets", "mine", "n_opp", "pot", "seen_rank", "seen_suit",
        "street", "strong", "to_call", "to_come", "unseen",
    )

    def __init__(self, hand: Hand, seat: int) -> None:
        community = hand.community
        self.community = community
        own = hand.cards[seat]  # the player's own cards, down cards included
        self.mine: list[Card] = [*own, community] if community is not None else list(own)
        self.street = hand.street
        self.pot = hand.pot_total
        self.to_call = hand.to_call
        self.full_bets = hand.full_bets
        self.to_come = max(0, 7 - len(self.mine))
        # Up cards only: of the opponents still in (their boards) and of everybody (dead cards).
        seen_rank = [0] * 15  # by rank 2..14 (the ace at 14)
        seen_suit = [0] * 4
        seen = 0
        boards: list[list[Card]] = []
        folded = hand.folded
        for s in range(hand.seat_count):
            if s == seat:
                continue
            up = hand.up_cards(s)
            for c in up:
                seen_rank[c.rank] += 1
                seen_suit[c.suit] += 1
            seen += len(up)
            if not folded[s]:
                boards.append([*up, community] if community is not None else up)
        for c in self.mine:
            seen_rank[c.rank] += 1
            seen_suit[c.suit] += 1
        seen += len(self.mine)
        self.seen_rank = seen_rank
        self.seen_suit = seen_suit
        self.unseen = max(1, _UNUSED - seen)
        self.boards = boards
        self.n_opp = max(1, len(boards))
        self.strong = False
        """Set by a later street's decision: the hand is well ahead (worth G5's big bet where it is open)."""


def _decide(hand: Hand, legal: Sequence[Action], rng: random.Random) -> Action:
    seat = hand.actor
    assert seat is not None
    view = _View(hand, seat)
    game = hand.game
    if game is Game.RAZZ and view.street == 3:
        intent = _third_street(view, legal, rng, razzbot.third_tier(view.mine[:3]))
    elif game is Game.RAZZ:
        share, drawing = razzbot.share(view)
        intent = bet_by_share(view, share, rng, drawing=drawing)
    elif view.street == 3:
        intent = _third_street(view, legal, rng, _third_tier(view.mine[:3], view.seen_rank, view.boards,
                                                             low_game=game is Game.STUD8))
    else:
        intent = _later_street(view, legal, rng, high_only=game is Game.STUD)
    action = _to_action(intent, legal)
    big = {Action.BET: Action.BET_BIG, Action.RAISE: Action.RAISE_BIG}.get(action)
    if view.strong and big is not None and big in legal:  # G5: a strong Stud hand takes the big bet
        return big
    return action


# ------------------------------------------------------------------ third street


def _third_tier(mine: Sequence[Card], seen_rank: Sequence[int], boards: Sequence[Sequence[Card]], *,
                low_game: bool = True) -> int:
    """0 junk, 1 marginal, 2 playable, 3 strong, 4 premium; three low cards count only in a ``low_game``
    (Stud Hi-Lo: in Stud they are three small cards)."""
    ranks = sorted((c.rank for c in mine), reverse=True)
    if ranks[0] == ranks[2]:
        return 4  # rolled-up trips
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]
        kicker = ranks[2] if ranks[0] == ranks[1] else ranks[0]
        dead = seen_rank[pair] - 2  # copies of our pair rank in other up cards
        if pair >= 13:
            tier = 4
        elif pair >= 10 or kicker == 14:
            tier = 3
        elif pair >= 8 and kicker >= 12:
            tier = 2
        else:
            tier = 1
        return max(0, tier - dead)
    lows = sorted({c.low_rank for c in mine if c.low_rank <= 8})
    suited = mine[0].suit == mine[1].suit == mine[2].suit
    if len(lows) == 3 and low_game:
        top = lows[2]
        score = 0.0
        if lows[0] == 1:
            score += 2.0
        score += 2.0 if top <= 5 else 1.5 if top == 6 else 1.0 if top == 7 else 0.0
        if suited:
            score += 1.0
        if top - lows[0] <= 4:
            score += 0.5
        # Competition and dead cards: many low door cards among the others.
        other_lows = sum(1 for b in boards for c in b[:1] if c.low_rank <= 8)
        dead_mine = sum(seen_rank[14 if r == 1 else r] - 1 for r in lows)
        if other_lows >= 4 or dead_mine >= 2:
            score -= 1.0
        return 4 if score >= 4.5 else 3 if score >= 2.5 else 2 if score >= 1.0 else 1
    high = ranks[0]
    if suited:
        return 2 if high >= 10 else 1
    spans = [ranks[0] - ranks[2]]
    if ranks[0] == 14:
        spans.append(ranks[1] - 1)  # the ace plays low in a straight
    if min(spans) <= 4:
        return 2 if ranks[2] >= 9 else 1
    if high == 14 and (ranks[1] >= 10 or ranks[2] <= 5):
        return 1
    return 0


def _third_street(view: _View, legal: Sequence[Action], rng: random.Random, tier: int) -> int:
    """Third street by the tier of the three cards (:func:`_third_tier`, Razz's own in bot/table/razzbot.py)."""
    if Action.BRING_IN in legal:  # the bring-in player's choice
        if tier == 4 or (tier == 3 and rng.random() < 0.25):
            return _RAISE
        return _CALL
    if view.to_call <= 0:  # checking is free (short all-in situations)
        return _RAISE if tier >= 4 or (tier == 3 and rng.random() < 0.3) else _CALL
    cheap = view.to_call * 5 <= view.pot
    if view.full_bets == 0:  # facing only the bring-in
        if tier == 4:
            return _RAISE
        if tier == 3:
            return _RAISE if rng.random() < 0.5 else _CALL
        if tier == 2:
            return _RAISE if rng.random() < 0.15 else _CALL
        if tier == 1:
            return _CALL if cheap and rng.random() < 0.5 else _FOLD
        return _FOLD
    if view.full_bets == 1:  # facing a completion
        if tier == 4:
            return _RAISE if rng.random() < 0.7 else _CALL
        if tier == 3:
            return _RAISE if rng.random() < 0.15 else _CALL
        if tier == 2:
            return _CALL
        return _CALL if tier == 1 and cheap and rng.random() < 0.2 else _FOLD
    # facing a raise or more
    if tier == 4:
        return _RAISE if view.full_bets < 3 and rng.random() < 0.5 else _CALL
    if tier == 3:
        return _CALL
    if tier == 2 and view.full_bets == 2 and rng.random() < 0.5:
        return _CALL
    return _FOLD


# ------------------------------------------------------------------ later streets


def _rank_made(mine: Sequence[Card]) -> tuple[int, int]:
    """(category, top rank) of the best high hand: exact from five cards, pairs below."""
    if len(mine) >= 5:
        value = high_value(mine)
        return int(category_of(value)), (value >> 16) & 15
    counts: dict[int, int] = {}
    for c in mine:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    return _group_category(counts)


def _group_category(counts: dict[int, int]) -> tuple[int, int]:
    """Pairs, trips and quads only (boards of up cards, short hands)."""
    best_count, best_rank, pairs = 0, 0, 0
    for rank, count in counts.items():
        if count >= 2:
            pairs += 1
        if (count, rank) > (best_count, best_rank):
            best_count, best_rank = count, rank
    if best_count >= 4:
        return int(HandCategory.FOUR_OF_A_KIND), best_rank
    if best_count == 3:
        return (int(HandCategory.FULL_HOUSE) if pairs >= 2 else int(HandCategory.THREE_OF_A_KIND)), best_rank
    if pairs >= 2:
        return int(HandCategory.TWO_PAIR), best_rank
    if pairs == 1:
        return int(HandCategory.ONE_PAIR), best_rank
    return int(HandCategory.HIGH_CARD), best_rank


_CATEGORY_QUALITY = {
    int(HandCategory.STRAIGHT): 0.88,
    int(HandCategory.FLUSH): 0.92,
    int(HandCategory.FULL_HOUSE): 0.97,
    int(HandCategory.FOUR_OF_A_KIND): 0.995,
    int(HandCategory.STRAIGHT_FLUSH): 1.0,
}


def _high_quality(category: int, top: int, street: int) -> float:
    """Rough chance that the made hand beats one opponent's hand at the showdown."""
    early = 0.06 * (7 - street)  # fewer cards out: made hands are relatively stronger
    if category == HandCategory.HIGH_CARD:
        return 0.05 + (0.03 if top == 14 else 0.0) + early
    if category == HandCategory.ONE_PAIR:
        return 0.15 + 0.02 * (top - 2) + early
    if category == HandCategory.TWO_PAIR:
        return min(0.9, 0.5 + 0.015 * (top - 2) + early)
    if category == HandCategory.THREE_OF_A_KIND:
        return min(0.95, 0.76 + 0.01 * (top - 2) + early)
    return _CATEGORY_QUALITY[category]


def _high_draws(view: _View) -> tuple[float, float]:
    """(chance to make a flush or straight, its quality) with the cards to come."""
    to_come = view.to_come
    if to_come <= 0:
        return 0.0, 0.0
    mine, unseen = view.mine, view.unseen
    best_p, best_q = 0.0, 0.0
    suit_count = [0, 0, 0, 0]
    for c in mine:
        suit_count[c.suit] += 1
    for suit in range(4):
        have = suit_count[suit]
        if have >= 2 and 5 - have <= to_come:
            outs = 13 - view.seen_suit[suit]
            p = _p_make(5 - have, to_come, outs, unseen, 1.0)
            if p > best_p:
                best_p, best_q = p, 0.92
    present = 0
    for c in mine:
        present |= 1 << c.rank
    if present >> 14 & 1:
        present |= 2  # the ace plays low too
    for low in range(1, 11):
        window = range(low, low + 5)
        missing = [r for r in window if not present >> r & 1]
        need = len(missing)
        if 0 < need <= to_come:
            outs = sum(4 - view.seen_rank[14 if r == 1 else r] for r in missing)
            p = _p_make(need, to_come, outs, unseen, outs / need)
            if p * 0.88 > best_p * best_q:
                best_p, best_q = p, 0.88
    return best_p, best_q


_LOW_QUALITY = {5: 1.0, 6: 0.9, 7: 0.75, 8: 0.5}


def _low_quality(top: int, second: int) -> float:
    """Rough chance that a made low with these two highest cards beats another made low."""
    q = _LOW_QUALITY.get(top, 0.3)
    if top == 8:
        q += 0.1 if second <= 5 else -0.1 if second == 7 else 0.0
    elif top == 7 and second <= 4:
        q += 0.05
    return q


def _later_street(view: _View, legal: Sequence[Action], rng: random.Random, *, high_only: bool = False) -> int:
    """Fourth to seventh street; ``high_only`` (Stud, G6): the share of the pot is the high hand's alone."""
    mine, street, to_come = view.mine, view.street, view.to_come

    # --- high: made hand and draws, then against each opponent's board
    category, top = _rank_made(mine)
    made_q = _high_quality(category, top, street)
    p_draw, draw_q = _high_draws(view) if category < HandCategory.STRAIGHT else (0.0, 0.0)
    q_high = made_q + p_draw * (draw_q - made_q) if draw_q > made_q else made_q

    # --- low: made, or the chance to make one from the live low cards
    low_ranks = sorted({c.low_rank for c in mine if c.low_rank <= 8})
    n_low = len(low_ranks)
    made_low = low_value(mine) if len(mine) >= 5 and not high_only else None
    if high_only:
        p_low_make, q_low, low_top = 0.0, 0.0, 9
    elif made_low is not None:
        mask = 255 - made_low
        used = [r + 1 for r in range(7, -1, -1) if mask >> r & 1]
        p_low_make = 1.0
        q_low = _low_quality(used[0], used[1])
        low_top = used[0]
    elif n_low + to_come >= 5:
        need = 5 - n_low
        missing = [r for r in range(1, 9) if r not in low_ranks]
        outs = sum(4 - view.seen_rank[14 if r == 1 else r] for r in missing)
        p_low_make = _p_make(need, to_come, outs, view.unseen, outs / len(missing))
        low_top = max(low_ranks[-1] if low_ranks else 8, 6 if need == 1 else 7)
        q_low = _low_quality(low_top, 5) * 0.95
    else:
        p_low_make, q_low, low_top = 0.0, 0.0, 9

    p_high = 1.0
    none_low = 1.0  # chance that no opponent makes a low
    low_safe = 1.0  # chance that no opponent makes a low better than ours
    for board in view.boards:
        q = q_high
        counts: dict[int, int] = {}
        suits = [0, 0, 0, 0]
        for c in board:
            counts[c.rank] = counts.get(c.rank, 0) + 1
            suits[c.suit] += 1
        b_cat, b_top = _group_category(counts)
        if category >= HandCategory.STRAIGHT:
            if b_cat >= HandCategory.FOUR_OF_A_KIND:
                q = 0.1
            elif b_cat >= HandCategory.TWO_PAIR and category < HandCategory.FULL_HOUSE:
                q *= 0.75
        elif b_cat > category or (b_cat == category and b_cat > 0 and b_top > top):
            q = max(0.12, p_draw * draw_q)  # the board alone beats our made hand
        if category < HandCategory.FLUSH and street >= 5:
            flushy = max(suits)
            if flushy >= 4:
                q *= 0.55
            elif flushy == 3:
                q *= 0.85
        # A board of low, unpaired cards is more likely a low draw than a high hand.
        lows = {c.low_rank for c in board if c.low_rank <= 8}
        bad = len(board) - len(lows)
        if b_cat == 0 and len(board) >= 2 and bad == 0 and not high_only:
            q = 1.0 - (1.0 - q) * 0.75
        p_high *= q
        # Low threat: a board with three cards useless for a low cannot make one.
        if bad <= 2 and not high_only:
            p_opp_low = (0.1, 0.3, 0.5, 0.65, 0.8)[min(len(lows), 4)]
            if bad == 2:
                p_opp_low *= 0.5
            elif bad == 1:
                p_opp_low *= 0.8
            if street == 7 and len(lows) <= 1:
                p_opp_low *= 0.5
            none_low *= 1.0 - p_opp_low
            if q_low > 0.0:
                beat = 1.0 - q_low
                shown = sorted(lows)[:4]
                if len(shown) >= 3 and shown[-1] < low_top:
                    beat = min(1.0, beat * 1.5 + 0.1)
                low_safe *= 1.0 - p_opp_low * beat

    p_low = p_low_make * low_safe
    p_any_low = 1.0 - (1.0 - p_low_make) * none_low
    share = p_high * (1.0 - 0.5 * p_any_low) + 0.5 * p_low
    drawing = to_come >= 2 and max(p_low_make * q_low, p_draw) >= 0.45
    return bet_by_share(view, share, rng, drawing=drawing)


def bet_by_share(view: _View, share: float, rng: random.Random, *, drawing: bool) -> int:
    """Fourth to seventh street's betting from the share of the pot the hand can expect (every game):
    bet or raise above a bar that falls with the number of opponents, call at the pot's odds (better
    with draws to come), else fold; ``drawing``: a good draw, worth a semi-bluff."""
    street, to_come = view.street, view.to_come
    n_opp = view.n_opp
    value_bar = min(0.55, 1.35 / (n_opp + 1))
    to_call = view.to_call
    view.strong = share >= value_bar + 0.2 + 0.07 * view.full_bets
    if to_call <= 0:
        if _ramp(share, value_bar, 0.1, rng):
            return _RAISE
        if drawing and rng.random() < 0.25:
            return _RAISE  # a semi-bluff
        if street == 7 and n_opp == 1 and share < 0.2 and rng.random() < 0.05:
            return _RAISE  # the occasional bluff
        return _CALL
    raise_bar = value_bar + 0.05 + 0.07 * max(0, view.full_bets - 1)
    if _ramp(share, raise_bar, 0.1, rng):
        return _RAISE
    price = to_call / (view.pot + to_call)
    if to_come >= 2:
        price *= 0.8  # implied odds: more bets to win when a draw comes in
    return _CALL if _ramp(share, price, 0.06, rng) else _FOLD
