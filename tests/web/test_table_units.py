"""The table server's small pure parts: Host names, the rate limit's bucket, prompts."""

from __future__ import annotations

import pytest

from campaign import i18n
from campaign.services.table.calls import prompt_of
from campaign.web import seats
from campaign.web.security import host_allowed, host_name

NAMES = frozenset({"localhost", "table.local"})


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("192.168.1.20:8000", True),
        ("[::1]:8000", True),
        ("[fe80::1]", True),
        ("localhost", True),
        ("LOCALHOST:80", True),
        ("table.local.:8000", True),
        ("evil.example:8000", False),
        ("127.0.0.1.nip.io:8000", False),
        ("localhost.evil.example", False),
        ("", False),
        (None, False),
        ("[::1", False),
        ("0x7f000001:8000", False),
    ],
)
def test_only_addresses_localhost_and_allowed_names_pass(host, allowed):
    assert host_allowed(host, NAMES) is allowed


def test_host_name_strips_port_brackets_case_and_the_root_dot():
    assert host_name("[::1]:8000") == "::1" and host_name("Table.Local.:80") == "table.local"
    assert host_name("::1") == "::1"  # an unbracketed IPv6 literal keeps its colons


def test_the_rate_limit_is_a_bounded_burst_then_a_steady_rate(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(seats.time, "monotonic", lambda: now[0])
    limit = seats.RateLimit(burst=3, rate=2.0)
    assert [limit.take(1) for _ in range(4)] == [True, True, True, False]
    assert limit.take(2)  # another session has its own bucket
    now[0] += 0.5  # one token back at 2 a second
    assert [limit.take(1) for _ in range(2)] == [True, False]
    now[0] += 3600  # a long pause refills only up to the burst
    assert [limit.take(1) for _ in range(4)] == [True, True, True, False]


def test_call_prompts_are_japanese_with_a_real_minus_sign():
    from campaign import i18n

    assert prompt_of("fright", "鈴音", {"modifier": -2}) == "roll your fright check: 鈴音 modifier −2"  # lang=en
    i18n.use("ja")
    try:
        _japanese_prompts()
    finally:
        i18n.use(None)


def _japanese_prompts() -> None:
    assert prompt_of("fright", "鈴音", {"modifier": -2}) == "恐怖判定を振ってください: 鈴音 修正 −2"
    assert prompt_of("fright", "鈴音", {"modifier": 0}) == "恐怖判定を振ってください: 鈴音"
    assert (
        prompt_of("check", "鈴音", {"check": "danger", "stat": "感", "difficulty": 10})
        == "危険感知を振ってください: 鈴音 感 難易度 10"
    )
    assert (
        prompt_of("reunion", "鈴音", {"characters": ["鈴音", "刀矢"], "scenario": 3})
        == "再会判定を振ってください: 鈴音、刀矢（シナリオ #3 の終わり）"
    )
    i18n.use("en")
    assert prompt_of("fright", "鈴音", {"modifier": -2}) == "roll your fright check: 鈴音 modifier −2"
    assert prompt_of("fright", "鈴音", {"modifier": -2}, will=11) == "roll your fright check: 鈴音 Will 11 −2"
    i18n.use(None)


def test_a_calls_json_prompt_is_english_whatever_the_language():
    """--json is one document in every language: the prompt a CallView holds is English."""
    from campaign import i18n
    from campaign.services.table.calls import neutral_prompt

    i18n.use("ja")
    assert neutral_prompt("check", "鈴音", {"check": "ability", "stat": "技", "target": 12}) == (
        "roll your ability check: 鈴音 技 target 12"
    )
    assert i18n.language() == "ja"  # worked out in a context of its own: the output's language stays
    i18n.use(None)
