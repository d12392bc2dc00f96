"""ipywidgets 8 and anywidget in the npcompile kernel, as in ipykernel: a widget opens its
comm on IOPub with its state, and a frontend's update reaches the Python object."""
from .kernel_helpers import iopub_until_idle, run_cell, send, stdout_text


def opened(outputs, model_name):
    return [m for m in outputs if m["msg_type"] == "comm_open" and
            m["content"]["data"].get("state", {}).get("_model_name") == model_name]


def test_ipywidgets_8_open_their_comm_and_take_updates(kc):
    reply, outs = run_cell(kc, "import ipywidgets as w\ns = w.IntSlider(value=3)\ns")
    assert reply["status"] == "ok"
    slider = opened(outs, "IntSliderModel")
    assert len(slider) == 1
    content = slider[0]["content"]
    assert content["target_name"] == "jupyter.widget"
    assert content["data"]["state"]["value"] == 3
    shown = [m for m in outs if m["msg_type"] == "execute_result"][0]["content"]["data"]
    model_id = shown["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert model_id == content["comm_id"]

    # the frontend moves the slider: the kernel's object follows
    sent = send(kc, "comm_msg", {"comm_id": model_id,
                                 "data": {"method": "update", "state": {"value": 7},
                                          "buffer_paths": []}})
    iopub_until_idle(kc, sent)
    reply, outs = run_cell(kc, "print(s.value)")
    assert stdout_text(outs).strip() == "7"

    # and the kernel's change reaches the frontend
    reply, outs = run_cell(kc, "s.value = 11")
    updates = [m for m in outs if m["msg_type"] == "comm_msg" and
               m["content"]["comm_id"] == model_id]
    assert updates and updates[-1]["content"]["data"]["state"] == {"value": 11}


def test_anywidget_opens_its_comm(kc):
    code = (
        "import anywidget, traitlets\n"
        "class Counter(anywidget.AnyWidget):\n"
        "    _esm = 'export default { render({ model, el }) { el.textContent = model.get(\"n\"); } }'\n"
        "    n = traitlets.Int(5).tag(sync=True)\n"
        "c = Counter()\n"
        "c")
    reply, outs = run_cell(kc, code)
    assert reply["status"] == "ok"
    comms = [m for m in outs if m["msg_type"] == "comm_open"]
    assert any(m["content"]["data"]["state"].get("n") == 5 for m in comms)


def test_the_report_widgets_checkbox_switches_auto_mode(kc):
    reply, outs = run_cell(kc, "import npcompile\nfrom npcompile import auto_mode\nw = npcompile.widget()\nw")
    assert reply["status"] == "ok"
    opened_report = [m for m in outs if m["msg_type"] == "comm_open" and
                     "report" in m["content"]["data"].get("state", {})]
    assert len(opened_report) == 1
    state = opened_report[0]["content"]["data"]["state"]
    assert state["auto"] is False and state["live"] is True and state["copy_gbps"] > 0
    # the page ticks the box: the kernel traces every cell from then on
    sent = send(kc, "comm_msg", {"comm_id": opened_report[0]["content"]["comm_id"],
                                 "data": {"method": "update", "state": {"auto": True},
                                          "buffer_paths": []}})
    iopub_until_idle(kc, sent)
    reply, outs = run_cell(kc, "print(auto_mode.is_on())")
    assert stdout_text(outs).strip() == "True"
    reply, _ = run_cell(kc, "%npcompile off")
    assert reply["status"] == "ok"
    reply, outs = run_cell(kc, "print(auto_mode.is_on())")
    assert stdout_text(outs).strip() == "False"
