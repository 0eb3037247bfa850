"""Settings from ``.env``: read with python-dotenv's parser, every value exactly as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.core.config import ConfigError, Settings, read_dotenv

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


def test_shards_and_webhook_workers() -> None:
    settings = Settings.from_env({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "2,3",
                                  "TELEGRAM_WEBHOOK_REGISTER": "0", "TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "80"})
    assert (settings.discord_shard_count, settings.discord_shard_ids) == (4, (2, 3))
    assert not settings.telegram_webhook_register and settings.telegram_webhook_max_connections == 80
    default = Settings.from_env({})
    assert default.discord_shard_count is None and default.discord_shard_ids is None
    assert default.telegram_webhook_register and default.telegram_webhook_max_connections == 40
    assert Settings.from_env({"DISCORD_SHARD_COUNT": "2"}).discord_shard_ids is None  # every shard here


@pytest.mark.parametrize(("env", "message"), [
    ({"DISCORD_SHARD_IDS": "0,1"}, "DISCORD_SHARD_IDS='0,1' needs DISCORD_SHARD_COUNT"),
    ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "1,2"},
     "DISCORD_SHARD_IDS='1,2': shard 2 is not below DISCORD_SHARD_COUNT=2 (shards are numbered 0 to 1)"),
    ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "1,1"}, "DISCORD_SHARD_IDS='1,1' names a shard twice"),
    ({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0;1"}, "must be shard numbers separated by commas"),
    ({"DISCORD_SHARD_COUNT": "0"}, "DISCORD_SHARD_COUNT='0' is not a whole number of shards"),
    ({"DISCORD_SHARD_COUNT": "two"}, "DISCORD_SHARD_COUNT='two' is not a whole number of shards"),
    ({"TELEGRAM_WEBHOOK_REGISTER": "maybe"}, "TELEGRAM_WEBHOOK_REGISTER='maybe' must be 1"),
    ({"TELEGRAM_WEBHOOK_MAX_CONNECTIONS": "500"}, "TELEGRAM_WEBHOOK_MAX_CONNECTIONS='500'"),
])
def test_wrong_shard_and_webhook_settings_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.from_env(env)
def test_cluster_settings() -> None:
    """STUDBOT_INSTANCE turns cluster mode on (unset: one process holds every table)."""
    assert Settings.from_env({}).instance is None
    s = Settings.from_env({"STUDBOT_INSTANCE": "w-1.eu", "STUDBOT_LEASE_SECONDS": "10"})
    assert (s.instance, s.lease_seconds) == ("w-1.eu", 10)
    with pytest.raises(ConfigError, match="STUDBOT_INSTANCE"):
        Settings.from_env({"STUDBOT_INSTANCE": "w 1"})
    with pytest.raises(ConfigError, match="STUDBOT_LEASE_SECONDS"):
        Settings.from_env({"STUDBOT_LEASE_SECONDS": "1"})


@pytest.mark.parametrize("name", ["STUDBOT_TURN_TIMER", "DISCORD_GUILD_ID", "DISCORD_SHARD_COUNT"])
def test_redteam_a_digit_that_is_no_number_is_a_config_error(name: str) -> None:
    """'²' passes str.isdigit() but not int(): a ConfigError naming the setting, not a ValueError."""
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: "²"})
    with pytest.raises(ConfigError, match="DISCORD_SHARD_IDS"):
        Settings.from_env({"DISCORD_SHARD_COUNT": "4", "DISCORD_SHARD_IDS": "0,²"})


@pytest.mark.parametrize("token", ["123:abc def-SECRET", "123:abc\ndef-SECRET", "123:abc\tSECRET"])
@pytest.mark.parametrize("name", ["TELEGRAM_TOKEN", "DISCORD_TOKEN"])
def test_redteam_a_token_with_a_space_or_line_break_is_refused_without_showing_it(name: str, token: str) -> None:
    with pytest.raises(ConfigError, match=name) as caught:
        Settings.from_env({name: token})
    assert "SECRET" not in str(caught.value)


def test_redteam_a_webhook_url_must_be_https_unless_a_local_bot_api_server() -> None:
    for url in ("http://example.com/tg/SECRET", "example.com/tg/SECRET", "https:///tg/SECRET"):
        with pytest.raises(ConfigError, match="TELEGRAM_WEBHOOK_URL") as caught:
            Settings.from_env({"TELEGRAM_WEBHOOK_URL": url})
        assert "SECRET" not in str(caught.value)  # the path is the webhook's secret
    assert Settings.from_env({"TELEGRAM_WEBHOOK_URL": "https://example.com/tg/x"}).telegram_webhook_url
    local = {"TELEGRAM_WEBHOOK_URL": "http://127.0.0.1:8443/tg", "TELEGRAM_BASE_URL": "http://127.0.0.1:8081/bot"}
    assert Settings.from_env(local).telegram_webhook_url == "http://127.0.0.1:8443/tg"


@pytest.mark.parametrize("url", ["postgresql://u:pwSECRET@[::1/db", "postgresql://u:pwSECRET@db:99999/db"])
def test_redteam_a_malformed_database_url_is_a_config_error_without_its_password(url: str) -> None:
    with pytest.raises(ConfigError, match="STUDBOT_DATABASE_URL") as caught:
        Settings.from_env({"STUDBOT_DATABASE_URL": url})
    assert "SECRET" not in str(caught.value)
