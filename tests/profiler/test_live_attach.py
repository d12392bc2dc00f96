"""The live attach from Python's side: npcompile.attach serves this process's session, and a
client written here with Python's own hmac and socket modules (a second implementation of
the protocol in profiler/include/npc/prof/attach_server.hpp) reads it: signatures agree,
events arrive as the program runs, a wrong key and garbage are refused without harm."""
import hashlib
import hmac
import json
import os
import socket
import stat
import struct
import time

import numpy as np
import pytest

import npcompile
from npcompile import attach
from npcompile.report import profiler

pytestmark = pytest.mark.skipif(profiler() is None,
                                reason="no native profiler")


def frame(key, body):
    text = json.dumps(body).encode()
    sig = hmac.new(key.encode(), text, hashlib.sha256).hexdigest().encode()
    return struct.pack(">I", len(sig) + len(text)) + sig + text


class Client:
    def __init__(self, info, key):
        self.key = key.encode()
        self.sock = socket.create_connection((info["host"], info["port"]), timeout=5)
        self.buf = b""

    def read(self):
        """The next frame's (signature ok, body)."""
        while len(self.buf) < 4 or len(self.buf) < 4 + struct.unpack(">I", self.buf[:4])[0]:
            got = self.sock.recv(65536)
            if not got:
                raise ConnectionError("closed")
            self.buf += got
        n = struct.unpack(">I", self.buf[:4])[0]
        sig, text = self.buf[4:68], self.buf[68:4 + n]
        self.buf = self.buf[4 + n:]
        ok = hmac.compare_digest(sig, hmac.new(self.key, text, hashlib.sha256).hexdigest().encode())
        return ok, json.loads(text)

    def send(self, body):
        self.sock.sendall(frame(self.key.decode(), body))


@pytest.fixture
def served(tmp_path):
    path = attach.serve(str(tmp_path / "npcompile-attach-test.json"), key="a key")
    with open(path) as f:
        info = json.load(f)
    yield path, info
    attach.stop()
    assert not os.path.exists(path)


def events_until(client, pred, seconds=5):
    seen = []
    end = time.time() + seconds
    while time.time() < end:
        ok, msg = client.read()
        assert ok
        if msg["type"] == "session":
            seen = list(msg["session"]["events"])
        elif msg["type"] == "events":
            seen += msg["events"]
        if pred(seen):
            return seen
    raise AssertionError(f"not seen in {seconds} s: {[e['type'] for e in seen]}")


def test_a_viewer_with_the_key_gets_the_session_as_it_grows(served):
    path, info = served
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert info["key"] == "a key" and info["pid"] == os.getpid() and info["port"] > 0
    npcompile.reset()
    c = Client(info, "a key")
    ok, hello = c.read()
    assert ok and hello["type"] == "hello" and hello["pid"] == os.getpid()
    c.send({"type": "auth", "nonce": hello["nonce"]})
    ok, first = c.read()
    assert ok and first["type"] == "session"

    @npcompile.jit
    def f(a):
        return np.sin(a) * 2.0 + 1.0
    f(np.arange(100.0))
    seen = events_until(c, lambda ev: {"trace_start", "compile", "kernel_run"} <=
                        {e["type"] for e in ev})
    assert any(e["type"] == "trace_start" and e["function"].endswith("f") for e in seen)
    assert attach.status()["viewers"] == 1
    c.sock.close()


def test_a_wrong_key_and_garbage_are_refused_and_the_stream_goes_on(served):
    path, info = served
    before = attach.status()["refused"]
    wrong = Client(info, "not the key")
    ok, hello = wrong.read()
    assert not ok                      # the viewer sees the kernel does not sign with its key
    wrong.send({"type": "auth", "nonce": hello["nonce"]})
    with pytest.raises((ConnectionError, OSError)):
        wrong.read()                   # and the kernel closes on it
    junk = socket.create_connection((info["host"], info["port"]), timeout=5)
    junk.sendall(b"\x00\x00\x00\x50" + b"z" * 80)
    junk.close()
    deadline = time.time() + 5
    while attach.status()["refused"] < before + 2 and time.time() < deadline:
        time.sleep(0.02)
    status = attach.status()
    assert status["refused"] >= before + 2
    assert any("signature" in line for line in status["log"])
    good = Client(info, "a key")
    ok, hello = good.read()
    good.send({"type": "auth", "nonce": hello["nonce"]})
    ok, msg = good.read()
    assert ok and msg["type"] == "session"
    good.sock.close()


def test_a_kernels_attach_file_names_its_connection_file_not_its_key(tmp_path):
    conn = tmp_path / "kernel-1234.json"
    conn.write_text(json.dumps({"key": "kernel secret", "shell_port": 1, "ip": "127.0.0.1",
                                "signature_scheme": "hmac-sha256"}))
    path = attach.serve_for_kernel(str(conn))
    try:
        assert os.path.basename(path) == "npcompile-attach-kernel-1234.json"
        assert os.path.dirname(path) == str(tmp_path)
        text = open(path).read()
        assert "kernel secret" not in text
        info = json.loads(text)
        assert info["connection_file"] == str(conn)
        c = Client(info, "kernel secret")
        ok, hello = c.read()
        assert ok and hello["type"] == "hello"
        c.sock.close()
    finally:
        attach.stop()
    conn.write_text(json.dumps({"shell_port": 1}))
    with pytest.raises(ValueError, match="no key"):
        attach.serve_for_kernel(str(conn))
