"""Exception types of the engine, one per kind of error.

Every exception derives from :class:`EngineError`, so a caller can catch all
rule and input problems at once, and each message quotes the offending input
and the state it met.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class CardError(EngineError, ValueError):
    """A card or a set of cards is malformed (``'Xx'``, ``'A'``, a duplicate)."""


class DuplicateCardError(CardError):
    """The same card appears twice where a deck holds it once."""


class StakesError(EngineError, ValueError):
    """Stakes or table options that break rule 2 (or are not numbers)."""


class DeckError(EngineError):
    """The deck cannot give the card the hand needs (a card is missing)."""


class IllegalActionError(EngineError):
    """The action is not allowed for the player to act in the current state.

    ``reason`` names the rule that refused it (``'check_facing'``, ``'capped'``...; empty
    when there is no single reason), ``amount`` the number the reason quotes, and
    ``action`` the refused action's name: enough for a caller to say it in any language.
    """

    def __init__(self, message: str, *, reason: str = "", amount: int = 0, action: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.amount = amount
        self.action = action


class NotYourTurnError(IllegalActionError):
    """Someone other than the player to act tried to act."""


class HandOverError(IllegalActionError):
    """An action was given after the hand had ended."""


class HandFileError(EngineError, ValueError):
    """A hand file is malformed: wrong shape, wrong types, unknown names."""


class SetupError(EngineError, ValueError):
    """A hand cannot start: wrong number of players, bad names or stacks."""


class FairError(EngineError, ValueError):
    """Something about a provably fair deck (stud8-fair/1, FAIRNESS.md) is wrong."""


class PlayerSeedError(FairError):
    """A player's seed is not 1-64 printable characters."""


class FairRecordError(FairError):
    """A hand file's ``fair`` object is malformed: wrong shape, scheme, hex or types."""


class CommitmentMismatchError(FairError):
    """A server seed whose SHA-256 is not the commitment it claims to open."""


class NotRevealedError(FairError):
    """The server seed of a record is not revealed yet, so its deck cannot be computed."""
