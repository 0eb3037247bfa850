"""The hand file of HAND_FORMAT.md: read one, replay it, write one, and the result.

>>> import json
>>> text = json.dumps({
...     "format": "stud8-hand/1",
...     "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
...     "players": [{"name": "ann", "stack": 20}, {"name": "bob", "stack": 20}],
...     "cards": {"ann": ["Ah", "2h", "3h"], "bob": ["Kc", "Kd", "2c"]},
...     "actions": ["bring-in", "complete", "fold"]})
>>> hand = replay_hand(HandFile.from_json(text))
>>> result_of(hand)["stacks"]
{'ann': 23, 'bob': 17}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import CARD_TEXTS, Card, check_distinct
from engine.dealing import ScriptedDealer
from engine.errors import CardError, EngineError, FairRecordError, HandFileError, StakesError
from engine.events import Action, ActionTaken
from engine.fair import FairRecord
from engine.game import Hand
from engine.games import Game
from engine.stakes import Options, Stakes

FORMAT = "stud8-hand/1"


class ReplayError(EngineError):
    """A hand file that cannot be replayed; ``action_index`` points at the culprit, if any."""

    def __init__(self, message: str, *, action_index: int | None = None) -> None:
        super().__init__(message)
        self.action_index = action_index


@dataclass(frozen=True, slots=True)
class HandFile:
    """One hand: its game, stakes, options, players in seat order, cards as dealt, and the actions.

    ``fair`` is the optional stud8-fair/1 record (FAIRNESS.md) of the deck the cards came
    from; replaying ignores it, ``python -m engine.verify`` checks the cards against it.
    """

    stakes: Stakes
    options: Options
    players: tuple[tuple[str, int], ...]
    cards: Mapping[str, tuple[Card, ...]]
    community: Card | None
    actions: tuple[str, ...]
    fair: FairRecord | None = None
    game: Game = Game.STUD8
    """G9: ``"game"`` in the file; absent means ``stud8``."""

    @classmethod
    def from_json(cls, text: str | bytes) -> HandFile:
        """Parse the JSON text of a hand file; :class:`ReplayError` if it is malformed."""
        try:
            data = json.loads(text)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ReplayError(f"the hand file is not valid JSON: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: Any) -> HandFile:
        """Validate a decoded hand file (extra top-level keys, such as an expected result, are ignored)."""
        try:
            return cls._from_dict(data)
        except (HandFileError, StakesError, CardError, FairRecordError) as exc:
            raise ReplayError(str(exc)) from None

    @classmethod
    def _from_dict(cls, data: Any) -> HandFile:
        if not isinstance(data, dict):
            raise HandFileError(f"a hand file is a JSON object, got {type(data).__name__}")
        fmt = data.get("format", FORMAT)
        if fmt != FORMAT:
            raise HandFileError(f"format {fmt!r} is not {FORMAT!r}")
        if "stakes" not in data:
            raise HandFileError("the hand file has no 'stakes'")
        stakes = Stakes.from_dict(data["stakes"])
        game = Game.from_str(data["game"]) if "game" in data else Game.STUD8
        options = Options.from_dict(data.get("options"))
        players = _players(data.get("players"))
        names = [name for name, _ in players]
        cards = _cards(data.get("cards"), names)
        community_text = data.get("community")
        community = None if community_text is None else _card(community_text, "community")
        check_distinct([c for seat in cards.values() for c in seat] + ([community] if community else []))
        actions = data.get("actions")
        if not isinstance(actions, list):
            raise HandFileError(f"'actions' must be a list of action names, got {actions!r}")
        for i, a in enumerate(actions):
            if not isinstance(a, str):
                raise HandFileError(f"action {i} is {a!r}, not a string")
        fair = None if data.get("fair") is None else FairRecord.from_dict(data["fair"])
        return cls(
            stakes=stakes, options=options, players=tuple(players), cards=cards,
            community=community, actions=tuple(actions), fair=fair, game=game,
        )

    def to_dict(self) -> dict[str, Any]:
        """The hand file as JSON-ready data; ``"fair"`` only when the hand has a record."""
        data: dict[str, Any] = {"format": FORMAT}
        if self.game is not Game.STUD8:  # G9: a stud8 file is written as before
            data["game"] = self.game.value
        data |= {
            "stakes": self.stakes.to_dict(),
            "options": self.options.to_dict(),
            "players": [{"name": n, "stack": s} for n, s in self.players],
            "cards": {n: [CARD_TEXTS[c.index] for c in self.cards.get(n, ())] for n, _ in self.players},
            "community": None if self.community is None else str(self.community),
            "actions": list(self.actions),
        }
        if self.fair is not None:
            data["fair"] = self.fair.to_dict()
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def _players(raw: Any) -> list[tuple[str, int]]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 8:
        raise HandFileError(f"'players' must be a list of 2 to 8 players, got {raw!r}")
    players: list[tuple[str, int]] = []
    for i, p in enumerate(raw):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or not p["name"]:
            raise HandFileError(f"player {i} must be {{\"name\": ..., \"stack\": ...}}, got {p!r}")
        stack = p.get("stack")
        if type(stack) is not int or stack <= 0:
            raise HandFileError(f"player {p['name']!r} has stack {stack!r}: a whole number above 0 is needed")
        if any(p["name"] == n for n, _ in players):
            raise HandFileError(f"player name {p['name']!r} appears twice")
        players.append((p["name"], stack))
    return players


def _cards(raw: Any, names: list[str]) -> dict[str, tuple[Card, ...]]:
    if not isinstance(raw, dict):
        raise HandFileError(f"'cards' must map each player to a list of cards, got {raw!r}")
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise HandFileError(f"'cards' names {unknown}, who are not players")
    cards: dict[str, tuple[Card, ...]] = {}
    for name in names:
        listed = raw.get(name, [])
        if not isinstance(listed, list):
            raise HandFileError(f"cards of {name!r} must be a list, got {listed!r}")
        if len(listed) > 7:
            raise HandFileError(f"{name!r} has {len(listed)} cards listed; a player gets at most 7")
        cards[name] = tuple(_card(c, f"{name}'s card {i + 1}") for i, c in enumerate(listed))
    return cards


def _card(text: Any, where: str) -> Card:
    try:
        return Card.from_str(text)
    except CardError as exc:
        raise CardError(f"{where}: {exc}") from None


_ACTION_WORDS = frozenset(a.value for a in Action)


def replay_hand(hand_file: HandFile) -> Hand:
    """Play a hand file through the engine; :class:`ReplayError` for anything illegal."""
    names = [n for n, _ in hand_file.players]
    dealer = ScriptedDealer(
        cards=[hand_file.cards[n] for n in names], community=hand_file.community, names=names,
    )
    try:
        hand = Hand(
            stakes=hand_file.stakes, options=hand_file.options, names=names,
            stacks=[s for _, s in hand_file.players], dealer=dealer, game=hand_file.game,
        )
    except EngineError as exc:
        raise ReplayError(str(exc)) from None
    for i, text in enumerate(hand_file.actions):
        if hand.is_over:
            raise ReplayError(
                f"action {i} ({text!r}) comes after the hand is over ({len(hand.actions)} actions ended it)",
                action_index=i,
            )
        if text not in _ACTION_WORDS:  # exactly as HAND_FORMAT.md writes them: 'call', not 'Call' or ' call'
            raise ReplayError(
                f"action {i}: unknown action {text!r}, expected exactly one of {', '.join(sorted(_ACTION_WORDS))}",
                action_index=i,
            )
        try:
            hand.act(Action(text))
        except EngineError as exc:
            raise ReplayError(f"action {i} ({text!r}): {exc}", action_index=i) from None
    if not hand.is_over:
        raise ReplayError(
            f"the actions end before the hand does: {hand.actor_name} must act on street {hand.street} "
            f"(legal: {hand.describe_legal()})",
            action_index=None,
        )
    return hand


def hand_file_of(hand: Hand, *, fair: FairRecord | None = None) -> HandFile:
    """The hand file of a hand (finished or not): everything needed to replay it, with the
    fair record of its deck if one is given."""
    return HandFile(
        stakes=hand.stakes,
        options=hand.options,
        players=tuple(zip(hand.names, hand.starting_stacks)),
        cards={n: tuple(hand.cards[s]) for s, n in enumerate(hand.names)},
        community=hand.community,
        actions=tuple(a.value for a in hand.actions),
        fair=fair,
        game=hand.game,
    )


def result_of(hand: Hand) -> dict[str, Any]:
    """The replay result of a finished hand, as HAND_FORMAT.md's "Output" describes it."""
    names = hand.names
    log = [
        {
            "street": e.street, "player": names[e.seat], "action": e.action.value,
            "amount": e.amount, "legal": sorted(a.value for a in e.legal),
        }
        for e in hand.events
        if isinstance(e, ActionTaken)
    ]
    payouts = {n: 0 for n in names}
    pots = []
    for r in hand.pot_results:
        for seat, chips in r.shares.items():
            payouts[names[seat]] += chips
        pots.append(
            {
                "amount": r.amount,
                "eligible": [names[s] for s in sorted(r.eligible)],
                "high": [names[s] for s in sorted(r.high)],
                "low": [names[s] for s in sorted(r.low)],
                "shares": {names[s]: r.shares[s] for s in sorted(r.shares)},
            }
        )
    return {
        "bring_in": None if hand.bring_in_seat is None else names[hand.bring_in_seat],
        "first_to_act": {str(st): names[s] for st, s in sorted(hand.first_actors.items())},
        "log": log,
        "pots": pots,
        "payouts": payouts,
        "stacks": dict(zip(names, hand.stacks)),
    }
