"""The benchmarks' seeded player: mostly calls and checks, so that hands reach the showdown."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import Action, Hand


@dataclass(frozen=True)
class Passive:
    """Chances of the aggressive choices (and of a rare fold); otherwise bring in, check or call."""

    bring_in_complete: float
    """Completing instead of posting the bring-in."""
    complete: float
    """Completing a bring-in (or a short all-in) made by someone else."""
    bet: float
    raise_: float
    fold: float

    def choose(self, hand: Hand, rng: random.Random) -> Action:
        legal = hand.legal_actions()
        r = rng.random()
        if Action.BRING_IN in legal:
            return Action.COMPLETE if Action.COMPLETE in legal and r < self.bring_in_complete else Action.BRING_IN
        if Action.CHECK in legal:
            return Action.BET if Action.BET in legal and r < self.bet else Action.CHECK
        if Action.RAISE in legal and r < self.raise_:
            return Action.RAISE
        if Action.COMPLETE in legal and r < self.complete:
            return Action.COMPLETE
        if Action.FOLD in legal and r > 1 - self.fold:
            return Action.FOLD
        return Action.CALL
