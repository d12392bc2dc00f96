"""The Jupyter debugger protocol (xeus-python's debugger over debugpy)."""
import pytest

from .kernel_helpers import run_cell

pytest.importorskip("debugpy")

INITIALIZE = {
    "clientID": "npcompile-tests", "clientName": "pytest", "adapterID": "", "pathFormat": "path",
    "linesStartAt1": True, "columnsStartAt1": True, "supportsVariableType": True,
    "supportsVariablePaging": True, "supportsRunInTerminalRequest": True, "locale": "en",
}


class Debugger:
    def __init__(self, kc):
        self.kc = kc
        self.seq = 0

    def __call__(self, command, arguments=None):
        self.seq += 1
        msg = self.kc.session.msg("debug_request", {
            "type": "request", "seq": self.seq, "command": command, "arguments": arguments or {}})
        self.kc.control_channel.send(msg)
        while True:
            reply = self.kc.get_control_msg(timeout=30)
            if reply["parent_header"]["msg_id"] == msg["header"]["msg_id"]:
                return reply["content"]


def test_debugger_attaches_and_inspects_variables(kc):
    dbg = Debugger(kc)
    init = dbg("initialize", INITIALIZE)
    assert init["success"] and init["body"]["supportsConfigurationDoneRequest"]
    assert dbg("attach")["success"]
    info = dbg("debugInfo")
    assert info["success"] and info["body"]["isStarted"]
    assert dbg("configurationDone")["success"]

    content, _ = run_cell(kc, "debugged_value = 41\ndebugged_value + 1")
    assert content["status"] == "ok"
    variables = {v["name"]: v for v in dbg("inspectVariables")["body"]["variables"]}
    assert variables["debugged_value"]["value"] == "41"
    assert variables["debugged_value"]["type"] == "int"

    assert dbg("disconnect", {"restart": False, "terminateDebuggee": True})["success"]
    content, _ = run_cell(kc, "1")
    assert content["status"] == "ok"
