"""The device agent's framing (docs/agent-protocol.md, "Transport and framing") for the tests
that speak it directly: agent_proto.py and agent_click_floor.py."""
import json
import struct


def recv_all(s, n):
    """Exactly n bytes from socket s; EOFError when the agent closes the connection first."""
    b = b""
    while len(b) < n:
        k = s.recv(n - len(b))
        if not k:
            raise EOFError("the agent closed the connection")
        b += k
    return b


def send_raw(s, header: bytes, payload=b""):
    """One message: the header's and the payload's lengths (uint32 little-endian), then both."""
    s.sendall(struct.pack("<II", len(header), len(payload)) + header + payload)


def answer(s):
    """The next answer on s: (its JSON header as a dict, its payload bytes)."""
    hn, pn = struct.unpack("<II", recv_all(s, 8))
    h = json.loads(recv_all(s, hn))
    return h, recv_all(s, pn)


def call(s, req, payload=b""):
    """Sends request dict req (with payload bytes) and returns its answer (header, payload)."""
    send_raw(s, json.dumps(req).encode(), payload)
    return answer(s)
