"""Seven Card Stud Hi-Lo, eight or better: the rules, pure and deterministic.

Standard library only: no I/O, no asyncio, no platform. See :class:`Hand`.
"""

from engine.cards import ALL_CARDS, Card, Deck, parse_cards
from engine.dealing import CardSource, DeckDealer, ScriptedDealer
from engine.errors import (
    CardError,
    CommitmentMismatchError,
    DeckError,
    DuplicateCardError,
    EngineError,
    FairError,
    FairRecordError,
    HandFileError,
    HandOverError,
    IllegalActionError,
    NotRevealedError,
    NotYourTurnError,
    PlayerSeedError,
    SetupError,
    StakesError,
)
from engine.evaluate import HighHand, LowHand, best_high, best_low, high_value, low_value
from engine.events import Action, Event
from engine.fair import FairRecord, check_player_seed, commitment_of
from engine.game import Hand
from engine.games import Game
from engine.handfile import HandFile, ReplayError, hand_file_of, replay_hand, result_of
from engine.stakes import Options, ShortAllIn, Stakes

__all__ = [
    "ALL_CARDS", "Action", "Card", "CardError", "CardSource", "CommitmentMismatchError", "Deck", "DeckDealer",
    "DeckError", "DuplicateCardError", "EngineError", "Event", "FairError", "FairRecord", "FairRecordError", "Game",
    "Hand", "HandFile", "HandFileError", "HandOverError", "HighHand", "IllegalActionError", "LowHand",
    "NotRevealedError", "NotYourTurnError", "Options", "PlayerSeedError", "ReplayError", "ScriptedDealer",
    "SetupError", "ShortAllIn", "Stakes", "StakesError", "best_high", "best_low", "check_player_seed",
    "commitment_of", "hand_file_of", "high_value", "low_value", "parse_cards", "replay_hand", "result_of",
]
