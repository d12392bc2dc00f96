"""Helpers of the kernel tests (plain functions; the fixtures are in conftest.py).
A module of its own, with a name no other test folder uses, so that test modules can
import it whatever other conftest.py files pytest has loaded."""
import os
import queue
import time
import uuid

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

KERNEL_NAME = "npcompile"
KERNEL_VERSION = "0.1.0"
TIMEOUT = 30


def start_in_runtime(runtime):
    """(kernel id, manager, client) of a kernel started as a Jupyter server starts one
    (connection file kernel-<id>.json), its runtime folder `runtime`."""
    from jupyter_client.manager import KernelManager
    kernel_id = str(uuid.uuid4())
    km = KernelManager(kernel_name=KERNEL_NAME,
                       connection_file=str(runtime / f"kernel-{kernel_id}.json"))
    km.start_kernel(env=dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime)))
    kc = km.client()
    kc.start_channels()
    return kernel_id, km, kc


def require_kernelspec():
    try:
        return KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        import pytest

        pytest.fail("kernelspec 'npcompile' is not installed: run `make install` first")


def drain(kc):
    """Forget messages left over by an earlier test."""
    for get in (kc.get_shell_msg, kc.get_iopub_msg):
        while True:
            try:
                get(timeout=0.05)
            except queue.Empty:
                break


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_shell_msg(timeout=max(0.01, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def iopub_until_idle(kc, msg_id, timeout=TIMEOUT):
    """IOPub messages of one request, up to its status: idle (excluded)."""
    deadline = time.monotonic() + timeout
    out = []
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return out
        out.append(msg)


def run_cell(kc, code, timeout=TIMEOUT, **kwargs):
    """Execute code; return (execute_reply content, iopub messages)."""
    kwargs.setdefault("stop_on_error", False)
    msg_id = kc.execute(code, **kwargs)
    reply = shell_reply(kc, msg_id, timeout)
    outputs = iopub_until_idle(kc, msg_id, timeout)
    return reply["content"], outputs


def send(kc, msg_type, content):
    """A message of the frontend's (a comm_open or comm_msg) on the shell channel; its id."""
    msg = kc.session.msg(msg_type, content)
    kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


def result_text(outputs):
    """text/plain of the execute_result among outputs, or None."""
    for msg in outputs:
        if msg["msg_type"] == "execute_result":
            return msg["content"]["data"]["text/plain"]
    return None


def stdout_text(outputs):
    return "".join(m["content"]["text"] for m in outputs
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")
