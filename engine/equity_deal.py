"""The counting behind :mod:`engine.equity`: every way the rest of a run-out can fall, or a sample of them.

A :class:`Spot` is a moment of a hand with every live player's cards face up. The rest of the deal
is a uniformly random choice of the unseen cards (folded players' down cards and the stub alike:
nobody knows which is which). Each way it can fall gives every live player an *outcome*: their high
value, low value and the two odd-chip keys of rule 19 (their highest own card, their lowest own card
ace low); the outcomes of all live players decide how the showdown divides every pot. The counting
gathers how often each tuple of outcomes occurs, then a :class:`Splitter` divides the pots for each
with the engine's own :func:`~engine.pots.split_pot` (once per pattern of winners), so odd chips,
quartering and side pots fall exactly where the showdown sends them. The spot's ``scoring`` follows
the hand's game: Stud reads the high hand alone and Razz the ace-to-five low alone, each pot whole
to the best.

Three ways to count:

* :func:`count_heads_up`: two players, exact, by inclusion-exclusion: every pair of completions
  (``N_A x N_B``, class by class) less the pairs that share a card, so fifth street heads-up
  (861 completions each) costs some 70,000 steps instead of 671,580 deals;
* :func:`count_exact`: every deal, player by player (three or more players, or a community card);
* :func:`count_sampled`: ``samples`` deals drawn by a seeded :class:`random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

from engine.cards import ALL_CARDS, Card
from engine.evaluate import high_value_of_key, low_value_of_key
from engine.games import Scoring
from engine.lowball import razz_value_of_key
from engine.pots import Pot, split_pot

Outcome = tuple[int, int | None, int, int]
"""One player's showdown: high value, low value (None: no low), high odd-chip key, low odd-chip key.

The spot's :class:`~engine.games.Scoring` decides what is read: Stud Hi-Lo both; Stud (G6) the high
only (low None, low key 99); Razz (G7) the ace-to-five low only (high 0, high key -1), so that the
parts a game does not read never tell two outcomes apart."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Spot:
    """A moment with every live hand face up: what is known and what is still to come."""

    seats: tuple[int, ...]
    """The live seats, in seat order."""
    names: tuple[str, ...]
    """Their names."""
    known: tuple[tuple[Card, ...], ...]
    """Each live seat's cards so far (the community card, if dealt, is not among them)."""
    needs: tuple[int, ...]
    """How many more cards of their own each live seat gets."""
    community: Card | None
    """The community card of rule 10, when it is already dealt."""
    community_due: bool
    """True when the run-out deals a community card still to come (rule 10)."""
    unseen: tuple[Card, ...]
    """Every card nobody alive holds and nobody saw folded: the cards still to come are among these."""
    pots: tuple[Pot, ...]
    scoring: Scoring = Scoring.HI_LO
    """What the pots are divided by (the hand's game: rules 17-19, G6, G7)."""

    @property
    def total(self) -> int:
        return sum(p.amount for p in self.pots)

    def deal_count(self) -> int:
        """How many different run-outs there are (ordered by player)."""
        left = len(self.unseen)
        count = 1
        for need in self.needs:
            count *= comb(left, need)
            left -= need
        return count * (left if self.community_due else 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Counted:
    """How often each tuple of outcomes occurs (a weight per tuple) and how many deals that is."""

    weights: Mapping[tuple[Outcome, ...], int]
    deals: int


class _Player:
    """A live player's known cards as the hot loops want them."""

    __slots__ = ("cards", "high_key", "key", "low_key", "scoring")

    def __init__(self, cards: Sequence[Card], scoring: Scoring = Scoring.HI_LO) -> None:
        self.scoring = scoring
        self.cards = list(cards)
        self.key = sum(c.key for c in cards)
        self.high_key = max((c.index for c in cards), default=-1)
        self.low_key = min((_low_key(c) for c in cards), default=99)

    def outcome(self, drawn: Sequence[Card], extra: Card | None) -> Outcome:
        key = self.key
        high_key = self.high_key
        low_key = self.low_key
        for card in drawn:
            key += card.key
            if card.index > high_key:
                high_key = card.index
            lk = _LOW_KEYS[card.index]
            if lk < low_key:
                low_key = lk
        if extra is not None:  # the community card counts in the hand, never for odd chips (rule 19)
            key += extra.key
        scoring = self.scoring
        if scoring is Scoring.LOW:  # G7: the ace-to-five low alone
            return (0, razz_value_of_key(key), -1, low_key)
        if ((key >> 32) + 0x3333) & 0x8888:  # a flush: the only case in which the cards themselves are read
            cards = [*self.cards, *drawn] if extra is None else [*self.cards, *drawn, extra]
            high = high_value_of_key(key=key, cards=cards)
        else:
            high = high_value_of_key(key=key, cards=())
        if scoring is Scoring.HIGH:  # G6: no low
            return (high, None, high_key, 99)
        low = low_value_of_key(key) if len(self.cards) + len(drawn) + (extra is not None) >= 5 else None
        return (high, low, high_key, low_key)


def _low_key(card: Card) -> int:
    """Rule 19's low odd-chip order as one number: lowest rank (ace low), then lowest suit."""
    return card.low_rank * 4 + card.suit


_LOW_KEYS: tuple[int, ...] = tuple(_low_key(c) for c in ALL_CARDS)  # ALL_CARDS is in index order


def _completions(player: _Player, pool: Sequence[Card], need: int, extra: Card | None) -> Iterator[
        tuple[int, Outcome, tuple[Card, ...]]]:
    """Each way the player's ``need`` cards can come from ``pool``: (card bit mask, outcome, cards)."""
    for drawn in combinations(pool, need):
        mask = 0
        for card in drawn:
            mask |= 1 << card.index
        yield mask, player.outcome(drawn, extra), drawn


def _coarsen(tables: list[list[Outcome]]) -> list[dict[Outcome, Outcome]]:
    """Each player's outcomes with the odd-chip keys dropped (-1, 99) where no other player can tie them.

    An odd-chip key decides something only between tied hands: a high value no other player can reach
    never ties, nor does a low value (or no low) no other player can reach. Outcomes that differ only
    in such keys become one, so there are fewer to count and to divide.
    """
    highs = [{o[0] for o in table} for table in tables]
    lows = [{o[1] for o in table if o[1] is not None} for table in tables]
    coarse: list[dict[Outcome, Outcome]] = []
    for p, table in enumerate(tables):
        other_highs = set().union(*(h for q, h in enumerate(highs) if q != p))
        other_lows = set().union(*(v for q, v in enumerate(lows) if q != p))
        coarse.append({
            o: (o[0], o[1], o[2] if o[0] in other_highs else -1, o[3] if o[1] in other_lows else 99)
            for o in table
        })
    return coarse


def heads_up_cost(spot: Spot) -> int:
    """Steps :func:`count_heads_up` takes: both tables, and the pairs that share cards."""
    left = len(spot.unseen)
    need_a, need_b = spot.needs
    cost = comb(left, need_a) + comb(left, need_b)
    for shared in range(1, min(need_a, need_b) + 1):
        cost += comb(left, shared) * comb(left - shared, need_a - shared) * comb(left - shared, need_b - shared)
    return cost


def count_heads_up(spot: Spot) -> Counted:
    """Exact counts for two players without a community card, by inclusion-exclusion on shared cards."""
    players = [_Player(cards, spot.scoring) for cards in spot.known]
    classes: list[dict[Outcome, int]] = [{}, {}]
    # by_subset[p][S][outcome]: how many of p's completions contain every card of S (S non-empty).
    by_subset: list[dict[tuple[Card, ...], dict[Outcome, int]]] = [{}, {}]
    done = [list(_completions(players[p], spot.unseen, spot.needs[p], spot.community)) for p in (0, 1)]
    coarse = _coarsen([[outcome for _, outcome, _ in table] for table in done])
    for p in (0, 1):
        for _, raw, drawn in done[p]:
            outcome = coarse[p][raw]
            classes[p][outcome] = classes[p].get(outcome, 0) + 1
            if spot.needs[1 - p]:
                for size in range(1, len(drawn) + 1):
                    for subset in combinations(drawn, size):
                        counts = by_subset[p].setdefault(subset, {})
                        counts[outcome] = counts.get(outcome, 0) + 1
    weights: dict[tuple[Outcome, ...], int] = {}
    for a, count_a in classes[0].items():
        for b, count_b in classes[1].items():
            weights[(a, b)] = count_a * count_b
    for subset, counts_a in by_subset[0].items():
        counts_b = by_subset[1].get(subset)
        if not counts_b:
            continue
        sign = -1 if len(subset) % 2 else 1  # pairs sharing exactly k cards are taken off once in all
        for a, count_a in counts_a.items():
            for b, count_b in counts_b.items():
                weights[(a, b)] += sign * count_a * count_b
    weights = {k: w for k, w in weights.items() if w}
    return Counted(weights=weights, deals=sum(weights.values()))


def count_exact(spot: Spot) -> Counted:
    """Exact counts: every deal, player by player, the community card (if due) first."""
    players = [_Player(cards, spot.scoring) for cards in spot.known]
    # The walk counts tuples of small ints (an outcome's number, one numbering for all players): they hash
    # much faster than tuples of outcomes.
    numbers: dict[Outcome, int] = {}
    counts: dict[tuple[int, ...], int] = {}
    commons: Sequence[Card | None] = spot.unseen if spot.community_due else (spot.community,)
    for common in commons:
        pool = [c for c in spot.unseen if c is not common]
        done = [list(_completions(players[p], pool, spot.needs[p], common)) for p in range(len(players))]
        coarse = _coarsen([[outcome for _, outcome, _ in table] for table in done])
        tables = [
            [(mask, numbers.setdefault(coarse[p][outcome], len(numbers))) for mask, outcome, _ in done[p]]
            for p in range(len(players))
        ]
        _walk(tables, 0, 0, (), counts)
    outcomes = list(numbers)
    weights = {tuple(outcomes[n] for n in key): count for key, count in counts.items()}
    return Counted(weights=weights, deals=sum(weights.values()))


def _walk(tables: list[list[tuple[int, int]]], index: int, used: int, prefix: tuple[int, ...],
          counts: dict[tuple[int, ...], int]) -> None:
    if index == len(tables) - 1:
        get = counts.get
        for mask, number in tables[index]:
            if not mask & used:
                key = (*prefix, number)
                counts[key] = get(key, 0) + 1
        return
    for mask, number in tables[index]:
        if not mask & used:
            _walk(tables, index + 1, used | mask, (*prefix, number), counts)


def count_sampled(spot: Spot, *, samples: int, rng: random.Random) -> Counted:
    """``samples`` run-outs drawn uniformly: the cards to come are a random sample of the unseen ones."""
    players = [_Player(cards, spot.scoring) for cards in spot.known]
    scoring = spot.scoring
    needs = spot.needs
    total_need = sum(needs) + (1 if spot.community_due else 0)
    pool = list(spot.unseen)
    size = len(pool)
    weights: dict[tuple[Outcome, ...], int] = {}
    uniform = rng.random
    bounds = []
    start = 0
    for need in needs:
        bounds.append((start, start + need))
        start += need
    rows = [(p.key, p.high_key, p.low_key, p.cards, lo, hi) for p, (lo, hi) in zip(players, bounds)]
    due = spot.community_due
    steps = range(total_need)
    low_keys = _LOW_KEYS
    for _ in range(samples):
        # The first total_need places of a partial Fisher-Yates shuffle: a uniform sample, in order
        # (random() * m is uniform on 0..m-1 to within 2**-53; several times quicker than rng.sample).
        for j in steps:
            k = j + int(uniform() * (size - j))
            pool[j], pool[k] = pool[k], pool[j]
        common = pool[total_need - 1] if due else spot.community
        common_key = 0 if common is None else common.key
        outcomes: list[Outcome] = []
        for base, high_key, low_key, cards, lo, hi in rows:  # _Player.outcome, inlined: the hot loop
            key = base + common_key
            for j in range(lo, hi):
                card = pool[j]
                key += card.key
                index = card.index
                if index > high_key:
                    high_key = index
                if low_keys[index] < low_key:
                    low_key = low_keys[index]
            if scoring is Scoring.LOW:  # G7: the ace-to-five low alone (as _Player.outcome)
                outcomes.append((0, razz_value_of_key(key), -1, low_key))
                continue
            if ((key >> 32) + 0x3333) & 0x8888:  # a flush: the cards themselves are read
                hand = [*cards, *pool[lo:hi]] if common is None else [*cards, *pool[lo:hi], common]
                high = high_value_of_key(key=key, cards=hand)
            else:
                high = high_value_of_key(key=key, cards=())
            if scoring is Scoring.HIGH:  # G6: no low
                outcomes.append((high, None, high_key, 99))
            else:  # seven cards: a low can be read
                outcomes.append((high, low_value_of_key(key), high_key, low_key))
        outcome_key = tuple(outcomes)
        weights[outcome_key] = weights.get(outcome_key, 0) + 1
    return Counted(weights=weights, deals=samples)


@dataclass(frozen=True, slots=True, kw_only=True)
class Split:
    """Each live player's chips from one tuple of outcomes, and whether they took every chip they could."""

    chips: tuple[int, ...]
    scoops: tuple[bool, ...]


class Splitter:
    """Divides every pot of a spot as the showdown would for a tuple of outcomes (rules 18 and 19).

    The division is the engine's own :func:`~engine.pots.split_pot`, called once per distinct *pattern*:
    each pot's high winners and low winners, each list in its odd-chip order (rule 19; the order matters
    only among tied winners). That pattern and the pots' amounts decide every share, and a spot has few
    patterns however many deals it has, so the divisions are memoised on it.
    """

    __slots__ = ("_memo", "_pots", "spot")

    def __init__(self, spot: Spot) -> None:
        self.spot = spot
        position = {seat: i for i, seat in enumerate(spot.seats)}
        self._pots = [tuple(position[s] for s in pot.eligible) for pot in spot.pots]
        self._memo: dict[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...], Split] = {}

    def split(self, outcomes: tuple[Outcome, ...]) -> Split:
        pattern = []
        for eligible in self._pots:
            best = max(outcomes[i][0] for i in eligible)
            high = [i for i in eligible if outcomes[i][0] == best]
            if len(high) > 1:
                high.sort(key=lambda i: -outcomes[i][2])
            lows = [v for i in eligible if (v := outcomes[i][1]) is not None]
            low: list[int] = []
            if lows:
                best_low = max(lows)
                low = [i for i in eligible if outcomes[i][1] == best_low]
                if len(low) > 1:
                    low.sort(key=lambda i: outcomes[i][3])
            pattern.append((tuple(high), tuple(low)))
        key = tuple(pattern)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._divide(outcomes)
        return found

    def _divide(self, outcomes: tuple[Outcome, ...]) -> Split:
        """The engine's division of every pot for these outcomes."""
        seats = self.spot.seats
        count = len(seats)
        high = {seats[i]: outcomes[i][0] for i in range(count)}
        low = {seats[i]: outcomes[i][1] for i in range(count)}
        high_order = [seats[i] for i in sorted(range(count), key=lambda i: -outcomes[i][2])]
        low_order = [seats[i] for i in sorted(range(count), key=lambda i: outcomes[i][3])]
        chips = dict.fromkeys(seats, 0)
        whole = {s: any(s in pot.eligible for pot in self.spot.pots) for s in seats}
        for pot in self.spot.pots:
            result = split_pot(pot=pot, high=high, low=low, high_order=high_order, low_order=low_order,
                               scoring=self.spot.scoring)
            for seat in pot.eligible:
                got = result.shares.get(seat, 0)
                chips[seat] += got
                if got != pot.amount:
                    whole[seat] = False
        return Split(chips=tuple(chips[s] for s in seats), scoops=tuple(whole[s] for s in seats))
