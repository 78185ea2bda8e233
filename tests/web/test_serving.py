"""How `campaign serve` listens (campaign.web.serving): the socket and the server's limits."""

from __future__ import annotations

import asyncio
import socket

import pytest

from campaign.errors import RuleRefused
from campaign.web.serving import listening_socket
from tests.cli.conftest import cli, gurps  # noqa: F401 (fixtures)


def test_a_connection_the_server_accepts_has_nagle_off():
    """The ~40 ms floor under every answer over real TCP: asyncio sets TCP_NODELAY only on
    sockets whose proto says TCP, so a listener made with proto 0 handed out connections
    that waited for the client's delayed ACK between a response's header and body writes."""
    sock = listening_socket("127.0.0.1", 0)
    assert sock.proto == socket.IPPROTO_TCP
    seen: list[int] = []

    async def main() -> None:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=sock)
        reader, writer = await asyncio.open_connection(*sock.getsockname())
        await reader.read()  # the server closed: its handler ran
        writer.close()
        server.close()
        await server.wait_closed()

    asyncio.run(main())
    assert len(seen) == 1 and seen[0] != 0


def test_a_port_in_use_is_refused_in_one_line():
    taken = listening_socket("127.0.0.1", 0)
    port = taken.getsockname()[1]
    with taken, pytest.raises(RuleRefused) as refused:
        listening_socket("127.0.0.1", port)
    assert str(refused.value) == f"cannot listen on 127.0.0.1:{port}: Address already in use"


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_the_warm_up_makes_the_luck_tally_before_the_first_luck_page(db_url, gurps):
    from campaign.web.app import warm_up
    from tests.web.conftest import client_for

    gurps.run("roll", "3D6", "--char", "鈴音", "--dice", "1,2,3")
    with client_for(gurps.db) as client:
        luck = client.app.app.state.luck
        assert luck.full_tallies == 0
        warm_up(client.app).join(60)
        assert luck.full_tallies == 1
        assert client.get("/luck").status_code == 200
        assert luck.full_tallies == 1  # the page read the kept tally: no second pass
