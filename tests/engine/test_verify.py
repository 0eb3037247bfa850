"""``python -m engine.verify``: a fairly dealt hand verifies; every tampering is named; malformed
input is the JSON error of status 2; the hand file's ``fair`` record round-trips."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import Deck, DeckDealer, Hand, HandFile, Stakes, hand_file_of, replay_hand, result_of
from engine.errors import FairRecordError, NotRevealedError
from engine.fair import FairRecord
from engine.replay import run as replay_run
from engine.verify import Finding, run, run_text, verify_hand_file

ROOT = Path(__file__).parents[2]
NAMES = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]


def fair_hand(
    *, players: int = 8, hand_no: int = 7, fold_weight: int = 0, rng_seed: int = 0, stacks: int = 200,
) -> tuple[Hand, FairRecord]:
    """A hand played through the engine from a fair deck: calls and checks (so all eight reach
    seventh street and the community card), and folds if ``fold_weight`` is above 0."""
    names = NAMES[:players]
    seeds = [(n, f"{n}'s seed" if i % 2 else "") for i, n in enumerate(names)]
    record = FairRecord.for_deal(
        table="console:main", hand_no=hand_no, server_seed=bytes([hand_no]) * 32, player_seeds=seeds,
    )
    dealer = DeckDealer(Deck.from_cards(record.deck()))
    hand = Hand(stakes=Stakes(), names=names, stacks=[stacks] * players, dealer=dealer)
    rng = random.Random(rng_seed)
    while not hand.is_over:
        legal = [a.value for a in hand.legal_actions()]
        weights = [fold_weight if a == "fold" else (1 if a in ("bring-in", "call", "check") else 0) for a in legal]
        hand.act(rng.choices(legal, weights)[0])
    return hand, record


def hand_data(hand: Hand, record: FairRecord) -> dict[str, Any]:
    return hand_file_of(hand, fair=record).to_dict()


def verify_data(data: Any) -> tuple[int, str]:
    return run_text(json.dumps(data) if not isinstance(data, str) else data)


@pytest.fixture(scope="module")
def full_hand() -> tuple[Hand, FairRecord]:
    hand, record = fair_hand()
    assert hand.community is not None and all(len(c) == 6 for c in hand.cards)
    return hand, record


def test_a_played_hand_verifies_through_a_real_process(full_hand: tuple[Hand, FairRecord], tmp_path: Path) -> None:
    hand, record = full_hand
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand_data(hand, record), ensure_ascii=False, indent=1), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == (
        f"fair: hand 7 of table 'console:main': SHA-256 of the server seed is the commitment "
        f"{record.commitment}, and all 49 cards dealt are the deck's positions 0-48\n"
    )
    assert proc.stderr == ""


def test_verdict_fields_for_the_bot(full_hand: tuple[Hand, FairRecord]) -> None:
    hand, record = full_hand
    verdict = verify_hand_file(hand_file_of(hand, fair=record))
    assert verdict.ok and verdict.finding is Finding.FAIR and verdict.cards_checked == 49
    assert (verdict.table, verdict.hand_no, verdict.commitment) == ("console:main", 7, record.commitment)


def test_replay_ignores_the_fair_record(full_hand: tuple[Hand, FairRecord], tmp_path: Path) -> None:
    hand, record = full_hand
    with_fair, without = tmp_path / "with.json", tmp_path / "without.json"
    with_fair.write_text(json.dumps(hand_data(hand, record)))
    without.write_text(json.dumps(hand_file_of(hand).to_dict()))
    assert "fair" not in hand_file_of(hand).to_dict()
    assert replay_run([str(with_fair)]) == replay_run([str(without)])
    assert json.loads(replay_run([str(with_fair)])[1]) == result_of(hand)


def test_the_record_round_trips_through_the_hand_file(full_hand: tuple[Hand, FairRecord]) -> None:
    hand, record = full_hand
    for fair in (record, record.hidden()):
        data = hand_file_of(hand, fair=fair).to_dict()
        assert data["fair"] == fair.to_dict()
        assert HandFile.from_json(json.dumps(data)).fair == fair
        assert HandFile.from_dict(data).to_dict() == data


# ------------------------------------------------------------------ tampering: exit 1, naming what differs

def card_at(data: dict[str, Any], position: int) -> tuple[str, int]:
    """(player, card number) that the eight-player, all-the-way hand deals at ``position``."""
    names = [p["name"] for p in data["players"]]
    order = [(n, i) for i in range(3) for n in names] + [(n, i) for i in range(3, 6) for n in names]
    return order[position]


def change_card(data: dict[str, Any]) -> str:
    deck = FairRecord.from_dict(data["fair"]).deck()
    name, index = card_at(data, 36)  # eve's fifth-street card
    data["cards"][name][index] = str(deck[51])  # a card nobody was dealt
    return f"unfair: {name}'s 5th-street card is {deck[51]} but the deck gives {deck[36]} at position 36"


def swap_cards(data: dict[str, Any]) -> str:
    cards = data["cards"]
    cards["bob"][2], cards["gus"][2] = cards["gus"][2], cards["bob"][2]
    return f"unfair: bob's door card is {cards['bob'][2]} but the deck gives {cards['gus'][2]} at position 17"


def change_community(data: dict[str, Any]) -> str:
    deck = FairRecord.from_dict(data["fair"]).deck()
    data["community"] = str(deck[50])
    return f"unfair: the community card is {deck[50]} but the deck gives {deck[48]} at position 48"


def change_server_seed(data: dict[str, Any]) -> str:
    data["fair"]["server_seed"] = "ab" * 32
    return "unfair: SHA-256 of the server seed is "


def change_commitment(data: dict[str, Any]) -> str:
    data["fair"]["commitment"] = "0" * 64
    return f"not the commitment {'0' * 64}"


def change_player_seed(data: dict[str, Any]) -> str:
    data["fair"]["player_seeds"][2][1] = "a different seed"
    return "unfair: ann's first down card is "


def change_table(data: dict[str, Any]) -> str:
    data["fair"]["table"] = "console:other"
    return "unfair: ann's first down card is "


def change_hand_no(data: dict[str, Any]) -> str:
    data["fair"]["hand_no"] = 8
    return "unfair: ann's first down card is "


def rename_player(data: dict[str, Any]) -> str:
    data["fair"]["player_seeds"][1][0] = "bobby"
    return "unfair: the fair record deals to ann, bobby, cat"


def reorder_seats(data: dict[str, Any]) -> str:
    seeds = data["fair"]["player_seeds"]
    seeds[0], seeds[1] = seeds[1], seeds[0]
    return "unfair: the fair record deals to bob, ann, cat, dan, eve, fay, gus, hal but the hand's players"


@pytest.mark.parametrize(
    "tamper",
    [change_card, swap_cards, change_community, change_server_seed, change_commitment, change_player_seed,
     change_table, change_hand_no, rename_player, reorder_seats],
    ids=lambda f: f.__name__,
)
def test_tampering_fails_with_status_1_naming_what_differs(
    full_hand: tuple[Hand, FairRecord], tamper: Callable[[dict[str, Any]], str],
) -> None:
    data = hand_data(*full_hand)
    says = tamper(data)
    status, out = verify_data(data)
    assert status == 1, out
    assert says in out and out.startswith("unfair: ") and "\n" not in out


def test_tampering_through_a_real_process(full_hand: tuple[Hand, FairRecord], tmp_path: Path) -> None:
    data = hand_data(*full_hand)
    says = change_card(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    proc = subprocess.run([sys.executable, "-m", "engine.verify", str(path)], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert (proc.returncode, proc.stdout) == (1, says + "\n")


def test_a_card_verdict_has_the_fields_for_the_bot(full_hand: tuple[Hand, FairRecord]) -> None:
    data = hand_data(*full_hand)
    change_card(data)
    verdict = verify_hand_file(HandFile.from_dict(data))
    deck = FairRecord.from_dict(data["fair"]).deck()
    assert not verdict.ok and verdict.finding is Finding.CARD
    assert (verdict.player, verdict.card_index, verdict.position) == ("eve", 4, 36) == (*card_at(data, 36), 36)
    assert (verdict.listed, verdict.expected, verdict.cards_checked) == (str(deck[51]), str(deck[36]), 36)


def test_cards_listed_but_never_dealt() -> None:
    hand, record = fair_hand(players=4, fold_weight=3, rng_seed=5)
    folder = next(n for s, n in enumerate(hand.names) if len(hand.cards[s]) < 7 and hand.folded[s])
    data = hand_data(hand, record)
    deck = record.deck()
    dealt = sum(len(c) for c in hand.cards)
    data["cards"][folder].append(str(deck[dealt]))
    number = ["", "", "", "4th-street", "5th-street", "6th-street", "7th-street"][len(data["cards"][folder]) - 1]
    assert verify_data(data) == (
        1, f"unfair: {folder}'s {number} card {deck[dealt]} is listed, but the hand never deals it",
    )
    data = hand_data(hand, record)
    data["community"] = str(deck[51])
    assert verify_data(data) == (
        1, f"unfair: the community card {deck[51]} is listed, but the hand never deals one",
    )


def test_a_changed_card_is_named_even_when_it_makes_the_actions_illegal() -> None:
    """A door card changed so that another player must bring in: the listed hand no longer
    replays (engine.replay exits 2), but the verdict is still the card that differs."""
    found = 0
    for k in range(60):
        hand, record = fair_hand(players=3, hand_no=k, fold_weight=2, rng_seed=k, stacks=6)
        data = hand_data(hand, record)
        deck = record.deck()
        for seat, name in enumerate(hand.names):
            for low in (str(c) for c in deck[40:] if c.rank == 2):
                tampered = copy.deepcopy(data)
                tampered["cards"][name][2] = low
                if replay_run_text(tampered)[0] != 2:
                    continue
                found += 1
                at = 6 + seat
                assert verify_data(tampered) == (
                    1, f"unfair: {name}'s door card is {low} but the deck gives {deck[at]} at position {at}",
                )
    assert found >= 20, found  # 40 with these hands


def replay_run_text(data: dict[str, Any]) -> tuple[int, str]:
    from engine.replay import replay_text

    return replay_text(json.dumps(data))


# ------------------------------------------------------------------ malformed input: status 2, JSON

@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("fair"), "no 'fair' record"),
        (lambda d: d.__setitem__("fair", None), "no 'fair' record"),
        (lambda d: d["fair"].__setitem__("server_seed", None), "not revealed yet"),
        (lambda d: d["fair"].pop("server_seed"), "not revealed yet"),
        (lambda d: d["fair"].__setitem__("scheme", "other/1"), "scheme 'other/1'"),
        (lambda d: d["fair"].__setitem__("server_seed", "XY" * 32), "server_seed must be 64 lowercase hex"),
        (lambda d: d["fair"]["player_seeds"][0].__setitem__(1, "\n"), "printable"),
        (lambda d: d.__setitem__("players", "ann"), "'players' must be a list"),
    ],
)
def test_malformed_input_is_status_2_json(
    full_hand: tuple[Hand, FairRecord], change: Callable[[dict[str, Any]], object], says: str,
) -> None:
    data = hand_data(*full_hand)
    change(data)
    status, out = verify_data(data)
    assert status == 2
    error = json.loads(out)
    assert set(error) == {"error", "action_index"} and error["action_index"] is None and says in error["error"]


def test_an_illegal_action_points_at_it(full_hand: tuple[Hand, FairRecord]) -> None:
    data = hand_data(*full_hand)
    data["actions"][3] = "bet"
    status, out = verify_data(data)
    assert status == 2 and json.loads(out)["action_index"] == 3


@pytest.mark.parametrize(
    ("argv", "says"), [([], "usage"), (["a", "b"], "usage"), (["/nonexistent.json"], "cannot read")],
)
def test_arguments_and_files(argv: list[str], says: str) -> None:
    status, out = run(argv)
    assert status == 2 and says in json.loads(out)["error"]


def test_not_json_and_stdin(full_hand: tuple[Hand, FairRecord]) -> None:
    assert verify_data("{")[0] == 2 and "not valid JSON" in json.loads(verify_data("{")[1])["error"]
    proc = subprocess.run([sys.executable, "-m", "engine.verify", "-"], input=json.dumps(hand_data(*full_hand)),
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.startswith("fair: ")
    proc = subprocess.run([sys.executable, "-m", "engine.verify", "-"], input="[]", capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert proc.returncode == 2 and json.loads(proc.stdout)["action_index"] is None


def test_verify_hand_file_raises_precise_errors(full_hand: tuple[Hand, FairRecord]) -> None:
    hand, record = full_hand
    with pytest.raises(FairRecordError, match="no 'fair' record"):
        verify_hand_file(hand_file_of(hand))
    with pytest.raises(NotRevealedError, match="not revealed yet"):
        verify_hand_file(hand_file_of(hand, fair=record.hidden()))


def test_a_hand_without_a_record_still_replays() -> None:
    data = json.loads((ROOT / "tests" / "vectors" / "hand_format_example.json").read_text())
    hand_file = HandFile.from_dict(data)
    assert hand_file.fair is None and "fair" not in hand_file.to_dict()
    assert result_of(replay_hand(hand_file))["stacks"] == {"ann": 105, "bob": 89, "cat": 17}


def test_verify_needs_only_the_standard_library_and_the_engine() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import engine.verify\n"
        "print(sorted(m for m in set(sys.modules) - before"
        " if m.split('.')[0] not in sys.stdlib_module_names and m.split('.')[0] != 'engine'))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.strip() == "[]"


# ------------------------------------------------------------------ the README's standalone snippet

def readme_snippet() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Checking a hand yourself"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("\n```\n", start)]


def run_snippet(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    script, hand = tmp_path / "deck.py", tmp_path / "hand.json"
    script.write_text(readme_snippet(), encoding="utf-8")
    hand.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", str(script), str(hand)], capture_output=True, text=True,
                          check=True, cwd=tmp_path, encoding="utf-8")
    return proc.stdout.splitlines()


def test_readme_snippet_uses_only_hashlib_hmac_json_and_sys() -> None:
    snippet = readme_snippet()
    assert [line for line in snippet.splitlines() if line.startswith(("import", "from"))] == [
        "import hashlib, hmac, json, sys",
    ]
    assert len(snippet.splitlines()) <= 25


def test_readme_snippet_recomputes_the_known_answer_vector(tmp_path: Path) -> None:
    from test_fair import KAV_DECK, kav_record

    hand = Hand(stakes=Stakes(), names=["ann", "bob", "cat"], stacks=[50] * 3,
                dealer=DeckDealer(Deck.from_cards(kav_record().deck())))
    hand.act("bring-in")
    hand.act("fold")
    hand.act("fold")
    assert run_snippet(tmp_path, hand_data(hand, kav_record())) == ["commitment ok: True", f"deck: {KAV_DECK}"]


def test_readme_snippet_agrees_with_the_engine_and_sees_a_changed_seed(
    full_hand: tuple[Hand, FairRecord], tmp_path: Path,
) -> None:
    hand, record = full_hand
    data = hand_data(hand, record)
    assert run_snippet(tmp_path, data) == ["commitment ok: True", "deck: " + " ".join(map(str, record.deck()))]
    data["fair"]["server_seed"] = "ab" * 32
    assert run_snippet(tmp_path, data)[0] == "commitment ok: False"


# ------------------------------------------------------------------ G9: a hand's game


@pytest.mark.parametrize("game", ["razz", "stud"])
def test_rule_g9_a_fair_hand_of_each_game_verifies_in_its_own_game(game: str) -> None:
    """The check replays the file's actions in the file's game: in Razz the bring-in and the first
    actors differ from Stud Hi-Lo's, so who folds (and so who is dealt the later cards) does too."""
    from engine.games import Game

    for hand_no in range(40):
        record = FairRecord.for_deal(table="console:main", hand_no=hand_no, server_seed=bytes(range(32)),
                                     player_seeds=[("ann", ""), ("bob", ""), ("cat", ""), ("dan", "")])
        hand = Hand(stakes=Stakes(), names=["ann", "bob", "cat", "dan"], stacks=[60, 60, 60, 60],
                    dealer=DeckDealer(Deck.from_cards(record.deck())), game=Game(game))
        # The bring-in seat folds on fourth street: in the other game another seat would.
        bringer = hand.bring_in_seat
        hand.act("bring-in")
        while hand.street == 3:
            hand.act("call")
        while not hand.is_over:
            hand.act("fold" if hand.actor == bringer and hand.can("fold") else
                     "bet" if hand.can("bet") else "call" if hand.can("call") else "check")
        verdict = verify_hand_file(hand_file_of(hand, fair=record))
        assert verdict.ok, (hand_no, verdict)
        data = hand_file_of(hand, fair=record).to_dict()
        # Tampering with the last card dealt is found.
        name = next(n for n in data["cards"] if len(data["cards"][n]) == 7)
        seen = {c for cards in data["cards"].values() for c in cards}
        data["cards"][name][6] = next(str(c) for c in record.deck() if str(c) not in seen)
        assert not verify_hand_file(HandFile.from_dict(data)).ok
