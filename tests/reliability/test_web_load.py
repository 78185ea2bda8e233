"""Load on the live feed: 50 browsers on /api/feed while a writer rolls 20 times a second.

`campaign serve` runs as a subprocess; the writer is another process calling the
services layer in a paced loop (as the GM's CLI and a table bot would), so every entry
reaches the server only through the database, the way the feed has to notice it. Each
of the 50 Server-Sent Event streams (httpx, one event loop) must deliver every entry
exactly once, in order, with no error anywhere; the delivery latency (commit seen by
the writer to event read by a client, same clock) is reported.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time

import pytest

from campaign.db.database import Database
from campaign.services.campaigns import setup as campaigns
from campaign.services.characters import roster as characters
from tests.browser.support import Server
from tests.reliability import support

CLIENTS = 50
RATE = 20.0  # rolls per second
SECONDS = 30.0
DRAIN = 15.0  # seconds after the last roll for every client to have seen it

WRITER = r"""
import json, sys, time
from campaign.core.dice_source import ManualDice
from campaign.db.database import Database
from campaign.services.checks import rolls

url, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
db = Database(url)
done, errors = [], []
start = time.monotonic()
for i in range(int(rate * seconds)):
    delay = start + i / rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    try:
        entry = rolls.roll(db, None, "Aki", "3D6", ManualDice([1 + i % 6, 1 + i // 6 % 6, 1 + i // 36 % 6]),
                           character="鈴音")
        done.append([entry["seq"], time.time()])
    except Exception as exc:
        errors.append(repr(exc))
db.close()
print(json.dumps({"rolls": done, "errors": errors, "seconds": time.monotonic() - start}))
"""


def _setup(db_url: str) -> None:
    db = Database(db_url)
    campaigns.create_campaign(db, "負荷卓", "gurps3-ja", "GM")
    characters.add_player(db, None, "Aki", "GM")
    characters.add_character(db, None, "鈴音", "GM", player="Aki", stats={"Will": 11, "IQ": 12, "HT": 11}, cp=100)
    db.close()


async def _client(base: str, after: int, connected: asyncio.Event, counter: list, seen: list, errors: list) -> None:
    """One browser's EventSource: read `entry` events until cancelled."""
    import httpx

    try:
        async with httpx.AsyncClient(timeout=httpx.Timeout(10.0, read=None)) as client:
            async with client.stream("GET", f"{base}/api/feed?after={after}") as response:
                if response.status_code != 200:
                    errors.append(f"status {response.status_code}")
                    return
                counter[0] += 1
                if counter[0] == CLIENTS:
                    connected.set()
                event, data = None, None
                async for line in response.aiter_lines():
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data = line[5:].strip()
                    elif line == "" and event is not None:
                        if event == "entry":
                            seen.append((json.loads(data)["seq"], time.time()))
                        event, data = None, None
    except Exception as exc:  # any failure of a stream is a finding, not a crash of the test
        errors.append(repr(exc))


async def _run(base: str, after: int, db_url: str) -> dict:
    connected = asyncio.Event()
    counter = [0]
    seen = [[] for _ in range(CLIENTS)]
    errors: list[str] = []
    tasks = [asyncio.create_task(_client(base, after, connected, counter, seen[i], errors)) for i in range(CLIENTS)]
    await asyncio.wait_for(connected.wait(), 60)
    writer = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WRITER, db_url, str(RATE), str(SECONDS), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await writer.communicate()
    if writer.returncode != 0:
        for task in tasks:
            task.cancel()
        raise AssertionError(f"writer failed: {err.decode()[-2000:]}")
    wrote = json.loads(out)
    rolls = wrote["rolls"]
    last = rolls[-1][0] if rolls else after

    def behind() -> int:
        return sum(1 for client in seen if not client or client[-1][0] < last)

    deadline = time.monotonic() + DRAIN
    while behind() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    stuck = behind()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"wrote": wrote, "seen": seen, "errors": errors, "stuck": stuck}


@pytest.mark.slow
def test_feed_under_load(db_url):
    _setup(db_url)
    with Server(db_url) as server:
        after = _head(db_url)
        started = time.monotonic()
        result = asyncio.run(_run(server.base, after, db_url))
        elapsed = time.monotonic() - started
        server.stop()
        log = server.stderr()

    wrote, seen = result["wrote"], result["seen"]
    assert wrote["errors"] == []
    expected = [seq for seq, _ in wrote["rolls"]]
    assert len(expected) == int(RATE * SECONDS)
    assert expected == list(range(after + 1, after + 1 + len(expected)))
    assert result["errors"] == [] and result["stuck"] == 0
    for client in seen:
        assert [seq for seq, _ in client] == expected  # every entry, once, in order
    assert "Traceback" not in log and "ERROR" not in log, log

    committed = dict(wrote["rolls"])
    latencies = sorted(at - committed[seq] for client in seen for seq, at in client)
    support.record(
        "web_feed",
        support.backend_of(db_url),
        clients=CLIENTS,
        entries=len(expected),
        events=sum(len(c) for c in seen),
        errors=len(result["errors"]) + len(wrote["errors"]),
        write_seconds=round(wrote["seconds"], 1),
        rate=round(len(expected) / wrote["seconds"], 1),
        latency_p50_ms=round(statistics.median(latencies) * 1000),
        latency_p95_ms=round(latencies[int(len(latencies) * 0.95)] * 1000),
        latency_max_ms=round(latencies[-1] * 1000),
        seconds=round(elapsed, 1),
    )


def _head(db_url: str) -> int:
    """The ledger head before the writer starts, read the way the CLI reads it."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from campaign.cli.app import main; main()",
            "--db",
            db_url,
            "history",
            "--limit",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)[0]["seq"]
