"""The throwaway PostgreSQL server the store tests and the benchmarks run against (bench/pgserver.py)."""

from __future__ import annotations

import subprocess

import pytest

from bench.pgserver import PostgresServer, PostgresUnavailable


def _psql(dsn: str, sql: str) -> str:
    done = subprocess.run(["psql", dsn, "-tA", "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


def test_the_session_server_answers_and_gives_each_test_its_own_database(pg_dsn: str, pg_database: str) -> None:
    assert pg_dsn.startswith("postgresql://") and "127.0.0.1" in pg_dsn
    assert _psql(pg_database, "SELECT 1") == "1"
    assert _psql(pg_database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0"
    _psql(pg_database, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)")
    assert _psql(pg_database, "SELECT x FROM t") == "7"
    assert _psql(pg_dsn, "SHOW server_version_num")[:2] >= "15"


def test_a_server_that_cannot_start_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("STUDBOT_PG_BIN", "/nonexistent/bin")
    server = PostgresServer()
    with pytest.raises(PostgresUnavailable, match="STUDBOT_PG_BIN"):
        server.start()
    server.stop()


def test_stopping_removes_the_data_directory() -> None:
    server = PostgresServer(durable=False)
    server.start()
    base = server.base
    assert base is not None and (base / "data" / "PG_VERSION").exists()
    assert _psql(server.dsn, "SELECT 2") == "2"
    server.stop()
    assert not base.exists()
