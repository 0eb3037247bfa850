"""Settings from ``.env``: read with python-dotenv's parser, every value exactly as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, read_dotenv

DSN = "postgresql://stud:p#ss=w'rd\"$HOME@127.0.0.1:5432/stud"


def test_values_come_through_exactly_as_written(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "# a comment line\n"
        "\n"
        "STUDBOT_DATABASE_URL='postgresql://stud:p#ss=w\\'rd\"$HOME@127.0.0.1:5432/stud'  # the DSN\n"
        "STUDBOT_LANGUAGE=ru # an inline comment\n"
        'TELEGRAM_WEBHOOK_URL="https://example.test/hook#part=1"\n'
        'MOTD="first line\\nsecond line"\n'
        "export STUDBOT_TURN_TIMER=30\n"
        "EMPTY=\n",
        encoding="utf-8",
    )
    values = read_dotenv(dotenv)
    assert values == {
        "STUDBOT_DATABASE_URL": DSN,
        "STUDBOT_LANGUAGE": "ru",
        "TELEGRAM_WEBHOOK_URL": "https://example.test/hook#part=1",
        "MOTD": "first line\nsecond line",
        "STUDBOT_TURN_TIMER": "30",
        "EMPTY": "",
    }
    settings = Settings.from_env({}, dotenv=dotenv)
    assert settings.language == "ru" and settings.turn_timer == 30


def test_the_environment_wins_over_the_file(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("STUDBOT_TURN_TIMER=30\nSTUDBOT_LANGUAGE=pl\n", encoding="utf-8")
    settings = Settings.from_env({"STUDBOT_TURN_TIMER": "45"}, dotenv=dotenv)
    assert settings.turn_timer == 45 and settings.language == "pl"


def test_a_line_that_is_not_key_value_names_its_line_and_not_its_text(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("STUDBOT_LANGUAGE=en\nDISCORD_TOKEN secret-token-text\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({}, dotenv=dotenv)
    assert f"{dotenv}:2: expected KEY=value" in str(caught.value)
    assert "secret-token-text" not in str(caught.value)


def test_cluster_settings() -> None:
    """STUDBOT_INSTANCE turns cluster mode on (unset: one process holds every table)."""
    assert Settings.from_env({}).instance is None
    s = Settings.from_env({"STUDBOT_INSTANCE": "w-1.eu", "STUDBOT_LEASE_SECONDS": "10"})
    assert (s.instance, s.lease_seconds) == ("w-1.eu", 10)
    with pytest.raises(ConfigError, match="STUDBOT_INSTANCE"):
        Settings.from_env({"STUDBOT_INSTANCE": "w 1"})
    with pytest.raises(ConfigError, match="STUDBOT_LEASE_SECONDS"):
        Settings.from_env({"STUDBOT_LEASE_SECONDS": "1"})
