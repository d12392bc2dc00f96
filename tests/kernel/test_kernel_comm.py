"""The "npcompile" comm target: every message is answered on the same comm."""
import uuid

from .kernel_helpers import KERNEL_VERSION, iopub_until_idle, run_cell, send


def comm_messages(kc, msg_id):
    return [m for m in iopub_until_idle(kc, msg_id) if m["msg_type"].startswith("comm_")]


def test_comm_round_trip(kc):
    comm_id = uuid.uuid4().hex
    opened = send(kc, "comm_open", {"comm_id": comm_id, "target_name": "npcompile", "data": {}})
    assert [m for m in comm_messages(kc, opened) if m["msg_type"] == "comm_close"] == []

    for payload in ({"ping": 1}, {"nested": {"list": [1, 2.5, "three", None, True]}}, {}):
        sent = send(kc, "comm_msg", {"comm_id": comm_id, "data": payload})
        answers = comm_messages(kc, sent)
        assert len(answers) == 1
        answer = answers[0]
        assert answer["msg_type"] == "comm_msg"
        assert answer["content"]["comm_id"] == comm_id
        assert answer["content"]["data"] == {"ok": True, "echo": payload, "version": KERNEL_VERSION}

    closed = send(kc, "comm_close", {"comm_id": comm_id, "data": {}})
    comm_messages(kc, closed)
    # A message to the closed comm gets no answer.
    sent = send(kc, "comm_msg", {"comm_id": comm_id, "data": {"after": "close"}})
    assert comm_messages(kc, sent) == []


def test_comms_are_independent_and_survive_close_of_others(kc):
    ids = [uuid.uuid4().hex for _ in range(3)]
    for comm_id in ids:
        comm_messages(kc, send(kc, "comm_open", {"comm_id": comm_id, "target_name": "npcompile", "data": {}}))
    comm_messages(kc, send(kc, "comm_close", {"comm_id": ids[0], "data": {}}))
    # Opening one more collects the closed comm; the others still answer.
    extra = uuid.uuid4().hex
    comm_messages(kc, send(kc, "comm_open", {"comm_id": extra, "target_name": "npcompile", "data": {}}))
    for comm_id in ids[1:] + [extra]:
        answers = comm_messages(kc, send(kc, "comm_msg", {"comm_id": comm_id, "data": {"who": comm_id}}))
        assert [a["content"]["comm_id"] for a in answers] == [comm_id]
        assert answers[0]["content"]["data"]["echo"] == {"who": comm_id}
    # And cells still run.
    content, _ = run_cell(kc, "1")
    assert content["status"] == "ok"


def test_unknown_target_is_closed(kc):
    comm_id = uuid.uuid4().hex
    answers = comm_messages(kc, send(kc, "comm_open", {"comm_id": comm_id, "target_name": "no-such-target", "data": {}}))
    assert [a["msg_type"] for a in answers] == ["comm_close"]
