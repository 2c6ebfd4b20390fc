"""``serve``'s port: a busy one is named at once, a free one passes."""

import socket

import pytest

from local_stack.errors import PortInUseError
from local_stack.port_check import ensure_port_free


@pytest.fixture
def listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock
    sock.close()


def test_a_port_another_program_listens_on_is_refused_with_its_number(listening):
    port = listening.getsockname()[1]
    with pytest.raises(PortInUseError, match=f"port {port} on 127.0.0.1 is already in use.*--port"):
        ensure_port_free("127.0.0.1", port)


def test_a_free_port_passes(listening):
    port = listening.getsockname()[1]
    listening.close()  # negative control: the same port, now free
    ensure_port_free("127.0.0.1", port)
    ensure_port_free("127.0.0.1", 0)
