"""``python -m engine.replay``: results exactly as HAND_FORMAT.md says, and every error as JSON with status 2."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.replay import run

VECTORS = Path(__file__).parents[1] / "vectors"
EXAMPLE: dict[str, Any] = json.loads((VECTORS / "hand_format_example.json").read_text())


def _run(data: Any, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "hand.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    status, out = run([str(path)])
    return status, json.loads(out)


def test_example_hand_as_documented_through_a_real_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(VECTORS / "hand_format_example.json")],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["bring_in"] == "bob"
    assert result["first_to_act"] == {"3": "bob", "4": "ann", "5": "ann", "6": "bob", "7": "bob"}
    assert len(result["log"]) == 13
    assert result["log"][:4] == [
        {"street": 3, "player": "bob", "action": "bring-in", "amount": 2, "legal": ["bring-in", "complete"]},
        {"street": 3, "player": "cat", "action": "complete", "amount": 5, "legal": ["call", "complete", "fold"]},
        {"street": 3, "player": "ann", "action": "call", "amount": 5, "legal": ["call", "fold", "raise"]},
        {"street": 3, "player": "bob", "action": "call", "amount": 3, "legal": ["call", "fold", "raise"]},
    ]
    assert result["pots"] == [
        {"amount": 33, "eligible": ["ann", "bob", "cat"], "high": ["cat"], "low": ["ann"],
         "shares": {"ann": 16, "cat": 17}},
        {"amount": 20, "eligible": ["ann", "bob"], "high": ["bob"], "low": ["ann"], "shares": {"ann": 10, "bob": 10}},
    ]
    assert result["payouts"] == {"ann": 26, "bob": 10, "cat": 17}
    assert result["stacks"] == {"ann": 105, "bob": 89, "cat": 17}


def test_options_default_and_extra_keys_are_ignored(tmp_path: Path) -> None:
    data = copy.deepcopy(EXAMPLE)
    del data["options"], data["community"]
    data["expected"] = {"anything": 1}
    status, result = _run(data, tmp_path)
    assert status == 0 and result["stacks"] == {"ann": 105, "bob": 89, "cat": 17}


def test_everyone_all_in_from_the_antes_has_no_bring_in(tmp_path: Path) -> None:
    data = {
        "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
        "players": [{"name": "ann", "stack": 1}, {"name": "bob", "stack": 1}],
        "cards": {"ann": ["Ah", "2h", "3h", "4c", "5d", "Kc", "Kd"], "bob": ["Qs", "Qd", "Js", "Jd", "9c", "9d", "2c"]},
        "actions": [],
    }
    status, result = _run(data, tmp_path)
    assert status == 0
    assert result["bring_in"] is None and result["first_to_act"] == {} and result["log"] == []
    assert result["pots"] == [
        {"amount": 2, "eligible": ["ann", "bob"], "high": ["ann"], "low": ["ann"], "shares": {"ann": 2}}
    ]


def test_rule_13_an_ante_nobody_matched_is_returned_uncalled(tmp_path: Path) -> None:
    # ann can post only 1 of the 2-chip ante; bob's second chip is matched by nobody and,
    # with no betting to come, goes back to him: in no pot and not in payouts.
    data = {
        "stakes": {"ante": 2, "bring_in": 2, "small_bet": 4, "big_bet": 8},
        "players": [{"name": "ann", "stack": 1}, {"name": "bob", "stack": 5}],
        "cards": {"ann": ["Ah", "2h", "3h", "4c", "5d", "Kc", "Kd"], "bob": ["Qs", "Qd", "Js", "Jd", "9c", "9d", "2c"]},
        "actions": [],
    }
    status, result = _run(data, tmp_path)
    assert status == 0
    assert result["bring_in"] is None and result["log"] == []
    assert result["pots"] == [
        {"amount": 2, "eligible": ["ann", "bob"], "high": ["ann"], "low": ["ann"], "shares": {"ann": 2}}
    ]
    assert result["payouts"] == {"ann": 2, "bob": 0}
    assert result["stacks"] == {"ann": 2, "bob": 4}


def _with(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(EXAMPLE)
    data.update(changes)
    return data


ERRORS = [
    ("not json", "{nope", None, "not valid JSON"),
    ("a list", [], None, "JSON object"),
    ("wrong format", _with(format="holdem/1"), None, "format"),
    ("no stakes", {k: v for k, v in EXAMPLE.items() if k != "stakes"}, None, "stakes"),
    ("bad stakes", _with(stakes={"ante": 1, "bring_in": 5, "small_bet": 5, "big_bet": 10}), None, "rule 2"),
    ("bad option", _with(options={"short_all_in": "quarter"}), None, "short_all_in"),
    ("one player", _with(players=[{"name": "ann", "stack": 100}]), None, "2 to 8 players"),
    ("zero stack", _with(players=[{"name": "ann", "stack": 0}, *EXAMPLE["players"][1:]]), None, "stack"),
    ("twin names", _with(players=[EXAMPLE["players"][0]] * 3), None, "appears twice"),
    ("stranger's cards", _with(cards={**EXAMPLE["cards"], "dan": ["2d"]}), None, "dan"),
    ("malformed card", _with(cards={**EXAMPLE["cards"], "ann": ["Ah", "1c"]}), None, "'1c'"),
    ("duplicate card", _with(cards={**EXAMPLE["cards"], "ann": ["Qd", "3c", "6d", "6h", "2s", "8d", "Jc"]}), None,
     "'Qd' appears twice"),
    ("eight cards", _with(cards={**EXAMPLE["cards"], "ann": [*EXAMPLE["cards"]["ann"], "9c"]}), None, "at most 7"),
    ("missing third-street card", _with(cards={**EXAMPLE["cards"], "bob": ["Qd", "Qs"]}), None, "missing card"),
    # cat's fifth card is dealt when cat's call (action 6) closes fourth street.
    ("missing later card", _with(cards={**EXAMPLE["cards"], "cat": ["Kd", "Ks", "Kh", "3s"]}), 6, "missing card"),
    ("unknown action", _with(actions=["bring-in", "shove"]), 1, "unknown action 'shove'"),
    # HAND_FORMAT.md's words exactly as written: no other case, no spaces, no spellings.
    *[(f"action word {word!r}", _with(actions=["bring-in", word]), 1, f"unknown action {word!r}")
      for word in ("Complete", "COMPLETE", " complete", "complete ", "bring_in", "bringin", "Bring-in", "")],
    ("illegal action", _with(actions=["bring-in", "raise"]), 1, "cannot raise"),
    ("fold when free", _with(actions=[*EXAMPLE["actions"][:4], "fold"]), 4, "checking is free"),
    ("actions missing", _with(actions=EXAMPLE["actions"][:5]), None, "end before the hand"),
    ("action after the end", _with(actions=[*EXAMPLE["actions"], "check"]), 13, "after the hand is over"),
    ("action not a string", _with(actions=["bring-in", 5]), None, "not a string"),
]


@pytest.mark.parametrize("data,index,words", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_are_json_with_status_2(tmp_path: Path, data: Any, index: int | None, words: str) -> None:
    status, result = _run(data, tmp_path)
    assert status == 2
    assert set(result) == {"error", "action_index"}
    assert result["action_index"] == index
    assert words in result["error"]


def test_missing_file_and_usage() -> None:
    status, out = run(["/nonexistent/hand.json"])
    assert status == 2 and "cannot read" in json.loads(out)["error"]
    status, out = run([])
    assert status == 2 and "usage" in json.loads(out)["error"]


def test_community_card_vector(tmp_path: Path) -> None:
    data = json.loads((VECTORS / "rule_19_community_odd_chip.json").read_text())
    status, result = _run(data, tmp_path)
    assert status == 0 and len(result["pots"]) == 2
    del data["community"]
    status, result = _run(data, tmp_path)
    # The last check of sixth street (action 27) deals seventh street.
    assert status == 2 and "community" in result["error"] and result["action_index"] == 27


def test_process_prints_only_json_on_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"players": 3}')
    proc = subprocess.run([sys.executable, "-m", "engine.replay", str(path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 2
    assert set(json.loads(proc.stdout)) == {"error", "action_index"}
