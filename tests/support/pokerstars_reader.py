"""A small strict reader of PokerStars stud hand histories (tests only): 7 Card Stud Hi/Lo,
7 Card Stud and Razz, ring games and tournaments (a mix's stud hands too).

Every line must match one rule of the grammar below; an unknown line raises
:class:`ReadError` (a reader that skips what it does not know can drop a hand
silently). Amounts are whole units: cents when the header shows dollars.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

RANK = r"(?:Deuce|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Jack|Queen|King|Ace)"
RANKS = r"(?:Deuces|Threes|Fours|Fives|Sixes|Sevens|Eights|Nines|Tens|Jacks|Queens|Kings|Aces)"
HI = (
    rf"(?:high card {RANK}|a pair of {RANKS}|two pair, {RANKS} and {RANKS}|three of a kind, {RANKS}"
    rf"|a straight, {RANK} to {RANK}|a flush, {RANK} high|a full house, {RANKS} full of {RANKS}"
    rf"|four of a kind, {RANKS}|a straight flush, {RANK} to {RANK}|a Royal Flush)"
)
LO = r"(?:[2-8A],){4}[2-8A]"
RAZZ_LO = r"[2-9TJQKA](?:,[2-9TJQKA]){1,4}"
WORDS = rf"HI: {HI}(?:; LO: {LO})?|{HI}|Lo: {RAZZ_LO}"
"""A shown hand's words: Stud Hi/Lo's ``HI: ...; LO: ...``, Stud's high alone (``a pair of Jacks``),
Razz's ``Lo: 9,7,5,4,2`` (fewer ranks when fewer cards are shown; a pair's ranks first)."""
GAME_WORDS = {"stud8": re.compile(rf"HI: {HI}(?:; LO: {LO})?"), "stud": re.compile(HI),
              "razz": re.compile(rf"Lo: {RAZZ_LO}")}
AMOUNT = r"\$?\d+(?:\.\d\d?)?"
CARD = r"[2-9TJQKA][cdhs]"
CARDS = rf"{CARD}(?: {CARD})*"
NAME = r"[^\s:\[\]](?:[^:\[\]]*[^\s:\[\]])?(?: \[(?![2-9TJQKA][cdhs][\] ])[^:\[\]]+\])?"
"""A player's name: no colon, no brackets but a bracketed word at its end that is no card (an
alias PokerStars shows as ``PC [Mittel]``)."""
ALL_IN = r"( and is all-in)?"
STREETS = {"3rd STREET": 3, "4th STREET": 4, "5th STREET": 5, "6th STREET": 6, "RIVER": 7}
FOLD_STREETS = {"3rd Street": 3, "4th Street": 4, "5th Street": 5, "6th Street": 6, "River": 7}

DATE = (r"(?:\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d [A-Z]{2,4} \[)?(?P<date>\d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d) ET"
        r"\]?")
"""``2009/11/26 10:24:42 ET``, or the player's zone first: ``2009/07/16 2:36:31 CET [2009/07/15 20:36:31 ET]``."""
LEVEL = r"(?:Level|LEVEL) (?P<level>[IVXLC]+)"
TOURNAMENT = (r"(?:Tournament|TOURNAMENT) #(?P<tournament>\d+), (?:Freeroll  ?|(?P<buyin>\$?\d+(?:\.\d\d)?)"
              r"\+(?P<fee>\$?\d+(?:\.\d\d)?)(?: USD)? )")
GAME = (r"(?P<game>7 Card Stud Hi/Lo Limit|7 CARD STUD HI/LO LIMIT|7 Card Stud Limit|7 CARD STUD LIMIT|Razz Limit"
        r"|RAZZ LIMIT)")
GAMES = {"7 card stud hi/lo limit": "stud8", "7 card stud limit": "stud", "razz limit": "razz"}
"""The game of a header's name (lower case): our engine's game names."""
MIX = r"(?:8-Game|HORSE|HOSE|Triple Stud|Mixed Games)"
HEADERS = [  # ring games, then tournaments; every form fpdb's PokerStars converter reads
    re.compile(rf"PokerStars (?:Hand|Game) #(?P<number>\d+): +{GAME} \((?P<small>{AMOUNT})/"
               rf"(?P<big>{AMOUNT})(?: USD)?\) - {DATE}"),
    re.compile(rf"PokerStars (?:Hand|Game) #(?P<number>\d+): +{MIX} \({GAME}, (?P<small>{AMOUNT})/"
               rf"(?P<big>{AMOUNT})(?: USD)?\) - {DATE}"),
    re.compile(rf"PokerStars (?:Home Game )?(?:Hand|Game) #(?P<number>\d+): (?:\{{(?P<club>[^}}]*)\}} )?{TOURNAMENT}"
               rf"(?:(?P<mix>{MIX}) \()?{GAME}(?(mix)\)) - (?:Match Round [IVXL]+, )?{LEVEL} \((?P<small>{AMOUNT})/"
               rf"(?P<big>{AMOUNT})\) - {DATE}"),
]
RING_BIG_BETS = frozenset({
    "0.04", "0.08", "0.10", "0.20", "0.40", "0.50", "1.00", "1", "2.00", "2", "4.00", "4", "6.00", "6", "8.00", "8",
    "10.00", "10", "16.00", "16", "20.00", "20", "30.00", "30", "40.00", "40", "50.00", "50", "60.00", "60", "80.00",
    "80", "100.00", "100", "150.00", "150", "200.00", "200", "400.00", "400", "500.00", "500", "600.00", "600",
    "800.00", "800", "1000.00", "1000", "2000.00", "2000", "4000.00", "4000", "10000.00", "10000", "20000.00",
    "20000", "40000.00", "40000"})
"""The big bets of the fixed-limit ring games fpdb reads: the keys of ``lim_blinds`` in fpdb's
PokerStarsToFpdb.py (jejellyroll-fr/fpdb-3, commit 73e75ffe); a ring hand at any other limit is
skipped there ("Lim_Blinds has no lookup")."""
RULES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern)
    for name, pattern in {
        "table": r"Table '(?P<table>[^']+)' (?P<max>\d+)-max(?P<play> \(Play Money\))?",
        "seat": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) \((?P<chips>{AMOUNT}) in chips\)(?: is sitting out)?",
        "ante": rf"(?P<name>{NAME}): posts the ante (?P<amount>{AMOUNT}){ALL_IN}",
        "street": rf"\*\*\* (?P<street>3rd STREET|4th STREET|5th STREET|6th STREET|RIVER) \*\*\*"
                  rf"(?: \[(?P<community>{CARD})\])?",
        "dealt": rf"Dealt to (?P<name>{NAME}) \[(?P<old>{CARDS})\](?: \[(?P<new>{CARD})\])?",
        "bring_in": rf"(?P<name>{NAME}): brings in for (?P<amount>{AMOUNT}){ALL_IN}",
        "fold": rf"(?P<name>{NAME}): folds",
        "check": rf"(?P<name>{NAME}): checks",
        "call": rf"(?P<name>{NAME}): calls (?P<amount>{AMOUNT}){ALL_IN}",
        "bet": rf"(?P<name>{NAME}): bets (?P<amount>{AMOUNT}){ALL_IN}",
        "raise": rf"(?P<name>{NAME}): raises (?P<amount>{AMOUNT}) to (?P<to>{AMOUNT}){ALL_IN}",
        "capped": r"Betting is capped",
        "double": r"Pair on board - a double bet is allowed",
        "board": rf"Board \[(?P<cards>{CARD})\]",
        "uncalled": rf"Uncalled bet \((?P<amount>{AMOUNT})\) returned to (?P<name>{NAME})",
        "collected": rf"(?P<name>{NAME}) collected (?P<amount>{AMOUNT}) from "
                     r"(?P<pot>pot|main pot|side pot|side pot-\d+)",
        "no_show": rf"(?P<name>{NAME}): doesn't show hand",
        "showdown": r"\*\*\* SHOW DOWN \*\*\*",
        "shows": rf"(?P<name>{NAME}): shows \[(?P<cards>{CARDS})\] \((?P<words>{WORDS})\)",
        "mucks": rf"(?P<name>{NAME}): mucks hand",
        "no_low": r"No low hand qualified",
        "summary": r"\*\*\* SUMMARY \*\*\*",
        "total": rf"Total pot (?P<total>{AMOUNT})(?: Main pot (?P<main>{AMOUNT})\."
                 rf"(?P<sides>(?: Side pot(?:-\d+)? {AMOUNT}\.)+))? \| Rake (?P<rake>{AMOUNT})",
        "seat_folded": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) folded on the "
                       r"(?P<street>3rd Street|4th Street|5th Street|6th Street|River)(?P<no_bet> \(didn't bet\))?",
        "seat_collected": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) collected \((?P<amount>{AMOUNT})\)",
        "seat_won": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) showed \[(?P<cards>{CARDS})\] and won "
                    rf"\((?P<amount>{AMOUNT})\) with (?P<words>{WORDS})",
        "seat_lost": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) showed \[(?P<cards>{CARDS})\] and lost with "
                     rf"(?P<words>{WORDS})",
        "seat_mucked": rf"Seat (?P<seat>\d+): (?P<name>{NAME}) mucked \[(?P<cards>{CARDS})\]",
        # Table chatter PokerStars interleaves (real files only; our export writes none).
        "joins": rf"(?P<name>{NAME}) joins the table at seat #\d+",
        "connected": rf"(?P<name>{NAME}) is (?:dis)?connected",
        "sitting": rf"(?P<name>{NAME}) is sitting out",
        "leaves": rf"(?P<name>{NAME}) leaves the table",
        "removed": rf"(?P<name>{NAME}) was removed from the table for failing to post",
        "said": rf'(?P<name>{NAME}) said, ".*"',
        "finished": rf"(?P<name>{NAME}) finished the tournament in \d+(?:st|nd|rd|th) place",
    }.items()
}
CHATTER = frozenset({"joins", "connected", "sitting", "leaves", "removed", "said", "finished"})
_ORDER = [  # the more specific rules first
    "table", "seat_folded", "seat_collected", "seat_won", "seat_lost", "seat_mucked", "seat", "street", "dealt",
    "showdown", "summary", "total", "capped", "double", "board", "no_low", "uncalled", "collected", "ante",
    "bring_in", "raise", "bet", "call", "check", "fold", "no_show", "shows", "mucks", "joins", "connected",
    "sitting", "leaves", "removed", "said", "finished",
]
assert set(_ORDER) == set(RULES)


class ReadError(ValueError):
    """A line that matches no rule, or a hand that does not hang together."""


@dataclass(frozen=True)
class Act:
    street: int
    name: str
    verb: str  # bring-in, bet, raise, call, check, fold
    added: int  # chips this action put in
    to: int  # the player's chips in this round after it
    all_in: bool


@dataclass
class ReadHand:
    number: int
    small: int
    big: int
    date: str
    scale: int
    game: str = "stud8"
    """``stud8``, ``stud`` or ``razz`` (the engine's names), from the header."""
    tournament: int | None = None
    buyin: tuple[int, int] | None = None
    """(buy-in, fee) of a tournament hand, in whole units; None for a freeroll or a ring game."""
    level: str | None = None
    club: str | None = None
    """A home game's club (the name in braces)."""
    table: str = ""
    play_money: bool = False
    seats: list[tuple[int, str, int]] = field(default_factory=list)
    antes: dict[str, int] = field(default_factory=dict)
    up: dict[str, list[str]] = field(default_factory=dict)
    """Each player's cards as the Dealt lines show them (the viewer's down cards too)."""
    viewer: str | None = None
    community: str | None = None
    acts: list[Act] = field(default_factory=list)
    capped: list[int] = field(default_factory=list)
    double_bet: bool = False
    """PokerStars wrote ``Pair on board - a double bet is allowed`` (fourth street, Stud)."""
    uncalled: list[tuple[str, int]] = field(default_factory=list)
    collected: list[tuple[str, int, str]] = field(default_factory=list)
    shown: dict[str, list[str]] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)
    showdown: bool = False
    no_low: bool = False
    total: int = 0
    pots: list[int] = field(default_factory=list)
    rake: int = 0
    summary: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    """name -> (kind: folded/collected/won/lost/mucked, street or amount, didn't bet flag)."""
    chatter: int = 0
    rules_used: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [n for _, n, _ in self.seats]

    def bring_in(self) -> str | None:
        """Who had to bring in: the first to act on third street (who may complete at once, ``bets``)."""
        return next((a.name for a in self.acts if a.street == 3), None)

    def collected_by(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, amount, _ in self.collected:
            out[name] = out.get(name, 0) + amount
        return out


def _amount(text: str, scale: int) -> int:
    value = Decimal(text.lstrip("$")) * scale
    if value != value.to_integral_value():
        raise ReadError(f"amount {text} is not a whole number of units")
    return int(value)


def split_hands(text: str) -> list[list[str]]:
    """The hands of a file: each a list of lines, from its header to the line before the next."""
    hands: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.rstrip().lstrip("\ufeff")
        if not line:
            continue
        if line.startswith("PokerStars "):
            hands.append([line])
        elif not hands:
            raise ReadError(f"text before the first hand: {line!r}")
        else:
            hands[-1].append(line)
    return hands


def read_file(text: str) -> list[ReadHand]:
    return [read_hand(lines) for lines in split_hands(text)]


def check_numbers(hands: list[ReadHand]) -> None:
    """Hand numbers are unique among all the hands given (fpdb keys a hand by site and number alone:
    a second hand with a number it has is dropped as a duplicate)."""
    seen: dict[int, int] = {}
    for i, hand in enumerate(hands):
        if hand.number in seen:
            raise ReadError(f"hand #{hand.number} twice (hands {seen[hand.number] + 1} and {i + 1})")
        seen[hand.number] = i


def read_hand(lines: list[str]) -> ReadHand:
    header = lines[0]
    match = next((m for h in HEADERS if (m := h.fullmatch(header))), None)
    if match is None:
        raise ReadError(f"not a stud header: {header!r}")
    scale = 100 if match["small"].startswith("$") else 1
    get = match.groupdict()
    tournament = int(get["tournament"]) if get.get("tournament") else None
    if tournament is None and match["big"].lstrip("$") not in RING_BIG_BETS:
        raise ReadError(f"a ring game at a limit fpdb does not know: {header!r}")
    buyin = None
    if get.get("buyin"):
        buyin = (_amount(get["buyin"], 100 if "$" in get["buyin"] else 1),
                 _amount(get["fee"], 100 if "$" in get["fee"] else 1))
    hand = ReadHand(number=int(match["number"]), small=_amount(match["small"], scale),
                    big=_amount(match["big"], scale), date=match["date"], scale=scale, tournament=tournament,
                    buyin=buyin, level=get.get("level"), club=get.get("club"), game=GAMES[match["game"].lower()])
    street = 0
    in_round: dict[str, int] = {}
    section = "seats"
    for n, line in enumerate(lines[1:], start=2):
        rule, m = match_line(line)
        if rule is None or m is None:
            raise ReadError(f"hand #{hand.number} line {n}: no rule matches {line!r}")
        hand.rules_used.append(rule)
        get = m.groupdict()
        amount = _amount(get["amount"], scale) if get.get("amount") else 0
        name = get.get("name")
        if rule in CHATTER:
            hand.chatter += 1
        elif rule == "table":
            hand.table, hand.play_money = get["table"], bool(get["play"])
            number, _, table_no = hand.table.partition(" ")
            if hand.tournament is not None and (number != str(hand.tournament) or not table_no.isdigit()
                                                or hand.play_money):
                raise ReadError(f"hand #{hand.number}: a tournament's table is '<tournament> <table>', not {line!r}")
        elif rule == "seat":
            hand.seats.append((int(get["seat"]), get["name"], _amount(get["chips"], scale)))
        elif rule == "ante":
            hand.antes[get["name"]] = amount
        elif rule == "street":
            street = STREETS[get["street"]]
            in_round = {}
            if get["community"]:
                hand.community = get["community"]
        elif rule == "dealt":
            assert name is not None
            _dealt(hand, street, name, get["old"].split(), get["new"])
        elif rule in ("bring_in", "bet", "call", "raise", "check", "fold"):
            assert name is not None
            before = in_round.get(name, 0)
            if rule == "raise":
                to = _amount(get["to"], scale)
                added = to - before
            else:
                added, to = amount, before + amount
            in_round[name] = to
            verb = {"bring_in": "bring-in"}.get(rule, rule)
            hand.acts.append(Act(street, name, verb, added, to, line.endswith(" and is all-in")))
        elif rule == "capped":
            hand.capped.append(len(hand.acts))
        elif rule == "double":
            if street != 4 or hand.game != "stud" or hand.double_bet:
                raise ReadError(f"hand #{hand.number} line {n}: a double bet in {hand.game} on street {street}")
            hand.double_bet = True
        elif rule == "board":
            if get["cards"] != hand.community:
                raise ReadError(f"hand #{hand.number} line {n}: board {get['cards']} is not the river's card")
        elif rule == "uncalled":
            assert name is not None
            hand.uncalled.append((name, amount))
        elif rule == "collected":
            assert name is not None
            hand.collected.append((name, amount, get["pot"]))
        elif rule == "showdown":
            hand.showdown = True
        elif rule == "shows":
            assert name is not None
            hand.shown[name] = get["cards"].split()
            hand.words[name] = _words(hand, get["words"])
        elif rule == "no_low":
            hand.no_low = True
        elif rule == "summary":
            section = "summary"
        elif rule == "total":
            hand.total, hand.rake = _amount(get["total"], scale), _amount(get["rake"], scale)
            if get["main"]:
                sides = re.findall(rf"Side pot(?:-\d+)? ({AMOUNT})\.", get["sides"])
                hand.pots = [_amount(get["main"], scale), *(_amount(s, scale) for s in sides)]
            else:
                hand.pots = [hand.total]
        elif rule.startswith("seat_"):
            _summary_line(hand, rule, get, scale)
        elif rule in ("no_show", "mucks"):
            pass
        if section == "summary" and rule not in ("summary", "total", "board") and not rule.startswith("seat_"):
            raise ReadError(f"hand #{hand.number} line {n}: {rule} after the summary began: {line!r}")
    if "total" not in hand.rules_used:
        raise ReadError(f"hand #{hand.number} has no 'Total pot' line")
    return hand


def match_line(line: str) -> tuple[str | None, re.Match[str] | None]:
    for rule in _ORDER:
        m = RULES[rule].fullmatch(line)
        if m:
            return rule, m
    return None, None


def _dealt(hand: ReadHand, street: int, name: str, old: list[str], new: str | None) -> None:
    cards = hand.up.setdefault(name, [])
    if street == 3:
        if new is not None or len(old) not in (1, 3):
            raise ReadError(f"third street deals one or three cards to {name}: {old} {new}")
        if len(old) == 3:
            hand.viewer = name
        cards[:] = old
        return
    if new is None:
        raise ReadError(f"street {street}: no new card for {name}")
    if old != cards:
        raise ReadError(f"street {street}: {name}'s cards {old} are not those dealt before {cards}")
    cards.append(new)


def _words(hand: ReadHand, words: str) -> str:
    """A shown hand's words, which must be the form of the hand's game."""
    if not GAME_WORDS[hand.game].fullmatch(words):
        raise ReadError(f"hand #{hand.number}: {words!r} is not how {hand.game} names a hand")
    return words


def _summary_line(hand: ReadHand, rule: str, get: dict[str, str], scale: int) -> None:
    name = get["name"]
    if "words" in get:
        _words(hand, get["words"])
    if rule == "seat_folded":
        hand.summary[name] = ("folded", FOLD_STREETS[get["street"]], int(bool(get["no_bet"])))
    elif rule == "seat_collected":
        hand.summary[name] = ("collected", _amount(get["amount"], scale), 0)
    elif rule == "seat_won":
        hand.summary[name] = ("won", _amount(get["amount"], scale), 0)
        hand.shown.setdefault(name, get["cards"].split())
    elif rule == "seat_lost":
        hand.summary[name] = ("lost", 0, 0)
        hand.shown.setdefault(name, get["cards"].split())
    elif rule == "seat_mucked":
        hand.summary[name] = ("mucked", 0, 0)
        hand.shown.setdefault(name, get["cards"].split())
