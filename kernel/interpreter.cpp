#include "interpreter.hpp"

#include <iostream>
#include <optional>

#include "pybind11/embed.h"
#include "pybind11/pybind11.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace npc {
interpreter::interpreter(history_manager& history, interrupt_handler& interrupts,
                         std::string kernel_id, std::string connection_file)
    : xpyt::interpreter(), m_history(history), m_interrupts(interrupts),
      m_kernel_id(std::move(kernel_id)), m_connection_file(std::move(connection_file)) {}

interpreter::~interpreter() {
  // Without a shutdown request the comm manager (owned by xeus's kernel core)
  // is already gone: the comms must not unregister from it.
  (void)m_comm_target.release();
}

// xeus-python-shell 0.5 stores str(etype), i.e. "<class 'ZeroDivisionError'>",
// as ename; Jupyter frontends and ipykernel use the bare class name.
void interpreter::instanciate_ipython_shell() {
  py::module_ shell_module = py::module_::import("xeus_python_shell.shell");
  py::dict scope;
  // `exit` asks the frontend to end the session, as ipykernel's shell does (its
  // ExitAutocall calls ask_exit, which xeus-python's shell lacks: an AttributeError,
  // and a kernel started by `jupyter console` that kept running after `exit`).
  py::exec(R"(
def _showtraceback(self, etype, evalue, stb):
    self.last_error = [getattr(etype, "__name__", str(etype)), str(evalue), stb]

def ask_exit(self):
    self.exit_now = True
)",
           scope);
  shell_module.attr("XPythonShell").attr("_showtraceback") = scope["_showtraceback"];
  shell_module.attr("XPythonShell").attr("ask_exit") = scope["ask_exit"];
  m_ipython_shell_app = shell_module.attr("XPythonShellApp")();
}

// ipywidgets 8 and anywidget open their comms through the `comm` package, whose
// default comm sends nothing: a widget showed "model not found". xeus-python's comms
// are its own ipykernel.comm module; the package is pointed at them, as ipykernel
// points it at its own. Done before any user import (ipywidgets registers its comm
// targets when it is imported). Without the package there is nothing to bridge.
void interpreter::bridge_comm_package() {
  py::gil_scoped_acquire acquire;
  py::dict scope;
  try {
    py::exec(R"(
import comm as _package
from ipykernel import comm as _xeus
_manager = _xeus.CommManager()

def create_comm(*args, **kwargs):
    return _xeus.Comm(*args, **kwargs)

def get_comm_manager():
    return _manager

_package.create_comm = create_comm
_package.get_comm_manager = get_comm_manager
)",
             scope);
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: widgets cannot open comms (" << e.what() << ")" << std::endl;
  }
}

// stdout and stderr by lines: xeus-python sends a stream message per write, so
// print('a', 1) was four outputs (a tour notebook's cell had 15); ipykernel buffers
// its streams. A partial line goes out at the next newline or when the cell ends
// (end_cell_streams).
void interpreter::buffer_streams_by_lines() {
  py::gil_scoped_acquire acquire;
  py::dict scope;
  py::exec(R"(
import sys

class _Lines:
    def __init__(self, raw):
        self._raw = raw
        self._pending = []

    def write(self, text):
        if not isinstance(text, str):
            return self._raw.write(text)     # its own error for bytes
        self._pending.append(text)
        if "\n" in text:
            self.flush()
        return len(text)

    def flush(self):
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._raw.write(text)
        flush = getattr(self._raw, "flush", None)
        if flush is not None:
            flush()

    def __getattr__(self, name):
        return getattr(self._raw, name)

for _name in ("stdout", "stderr"):
    if not isinstance(getattr(sys, _name), _Lines):
        setattr(sys, _name, _Lines(getattr(sys, _name)))
)",
           scope);
}

void interpreter::configure_impl() {
  xpyt::interpreter::configure_impl();
  bridge_comm_package();
  buffer_streams_by_lines();
  load_npcompile();
  m_comm_target = std::make_unique<comm_target>(comm_manager());
}

// The kernel stays a plain Python kernel when the package is missing or broken.
void interpreter::load_npcompile() {
  py::gil_scoped_acquire acquire;
  py::object magics;
  try {
    py::module_::import("npcompile");
    magics = py::module_::import("npcompile.magics").attr("MAGICS");
    m_npcompile_loaded = true;
    try { // without the CPU backend there is no compiled kernel to stop
      auto address = py::module_::import("npcompile._native")
                         .attr("cpu")
                         .attr("interrupt_flag_address")()
                         .cast<std::uintptr_t>();
      m_interrupts.set_kernel_stop_flag(reinterpret_cast<std::atomic<bool>*>(address));
    } catch (py::error_already_set&) {
    }
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: cannot import the npcompile Python package (" << e.what()
              << "); running as a plain Python kernel without npcompile's magics." << std::endl;
    return;
  }
  for (py::handle item : magics) {
    try {
      auto entry = item.cast<py::tuple>();
      auto kind = entry[0].cast<std::string>();
      auto name = entry[1].cast<std::string>();
      m_ipython_shell.attr("register_magic_function")(entry[2], "magic_kind"_a = kind,
                                                      "magic_name"_a = name);
    } catch (std::exception& e) {
      std::cerr << "xnpcompile: cannot register magic " << py::repr(item).cast<std::string>()
                << ": " << e.what() << std::endl;
    }
  }
  autosave_session();
  serve_attach();
}

// Every traced cell updates the kernel's session file in Jupyter's runtime folder, where
// npcompile-viewer looks by default. Without it the kernel still works: it only says why.
void interpreter::autosave_session() {
  try {
    py::module_::import("npcompile.report")
        .attr("autosave_session")(m_ipython_shell, m_kernel_id);
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: no session file for npcompile-viewer (" << e.what() << ")"
              << std::endl;
  }
}

// npcompile-viewer --attach follows the session live over loopback, signed with the
// kernel's key; an SSH tunnel reaches it on a remote machine. Off, with the reason on stderr,
// where it cannot start: the kernel works the same without it.
void interpreter::serve_attach() {
  try {
    py::module_::import("npcompile.attach").attr("serve_for_kernel")(m_connection_file);
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: no live attach for npcompile-viewer (" << e.what() << ")"
              << std::endl;
  }
}

nl::json interpreter::execute_request_impl(int execution_counter, const std::string& code,
                                           bool silent, bool store_history,
                                           nl::json user_expressions, bool allow_stdin) {
  nl::json reply;
  m_interrupts.begin_cell();
  try {
    reply = xpyt::interpreter::execute_request_impl(execution_counter, code, silent, store_history,
                                                    std::move(user_expressions), allow_stdin);
  } catch (py::error_already_set& e) {
    // An interrupt that lands after run_cell, while the reply is being put
    // together, must still give the client a reply.
    py::gil_scoped_acquire acquire;
    std::string ename = py::str(e.type().attr("__name__"));
    std::string evalue = py::str(e.value());
    reply = {{"status", "error"},
             {"ename", ename},
             {"evalue", evalue},
             {"traceback", nl::json::array()},
             {"user_expressions", nl::json::object()}};
    if (!silent) {
      publish_execution_error(ename, evalue, {});
    }
  }
  m_interrupts.end_cell();
  drain_pending_interrupt();
  end_cell_streams(reply);
  record_history(execution_counter, store_history && !silent);
  return reply;
}

// What the cell left: the partial line its streams hold, and `exit` (the ask_exit
// payload, on which jupyter console ends the session and the kernel, as with ipykernel).
void interpreter::end_cell_streams(nl::json& reply) {
  py::gil_scoped_acquire acquire;
  try {
    py::module_ sys = py::module_::import("sys");
    sys.attr("stdout").attr("flush")();
    sys.attr("stderr").attr("flush")();
    if (py::hasattr(m_ipython_shell, "exit_now") &&
        m_ipython_shell.attr("exit_now").cast<bool>()) {
      m_ipython_shell.attr("exit_now") = false;
      reply["payload"].push_back({{"source", "ask_exit"}, {"keepkernel", false}});
    }
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: " << e.what() << std::endl;
  }
}

// An interrupt that arrived as the cell ended must not hit the next request.
void interpreter::drain_pending_interrupt() {
  py::gil_scoped_acquire acquire;
  if (PyErr_CheckSignals() != 0) {
    PyErr_Clear();
  }
}

// The text of the cell's result, as IPython's displayhook logged it.
void interpreter::record_history(int execution_counter, bool store_history) {
  if (!store_history) {
    return;
  }
  std::optional<std::string> output;
  {
    py::gil_scoped_acquire acquire;
    try {
      py::object hm = m_ipython_shell.attr("history_manager");
      if (!hm.is_none()) {
        int ipython_count = m_ipython_shell.attr("execution_count").cast<int>() - 1;
        py::object text = hm.attr("output_hist_reprs").attr("get")(ipython_count);
        if (!text.is_none()) {
          output = text.cast<std::string>();
        }
      }
    } catch (py::error_already_set&) {
      // No output recorded: the history entry just has none.
    }
  }
  m_history.note_execution(execution_counter, std::move(output));
}

nl::json interpreter::kernel_info_request_impl() {
  nl::json info = xpyt::interpreter::kernel_info_request_impl();
  // the Python that runs (xeus-python's build-time PY_VERSION said 3.11.1 under 3.11.2)
  {
    py::gil_scoped_acquire acquire;
    info["language_info"]["version"] =
        py::module_::import("platform").attr("python_version")().cast<std::string>();
  }
  info["implementation"] = "npcompile";
  info["implementation_version"] = NPC_VERSION;
  info["banner"] = std::string("npcompile ") + NPC_VERSION +
                   ": a Jupyter kernel that compiles NumPy (xeus-python " + XPYT_VERSION +
                   ", Python " + PY_VERSION + ")" +
                   (m_npcompile_loaded ? "" : "\nwarning: the npcompile package is not importable");
  info["help_links"] = nl::json::array(
      {{{"text", "xeus-python Reference"}, {"url", "https://xeus-python.readthedocs.io"}}});
  return info;
}

void interpreter::shutdown_request_impl() {
  // The comm manager still exists here; it will not at destruction.
  m_comm_target.reset();
  // A clean shutdown takes the session file (the cells' source) with it.
  try {
    py::gil_scoped_acquire acquire;
    py::module_::import("npcompile.report").attr("remove_session_file")();
    py::module_::import("npcompile.attach").attr("stop")(); // and its attach file
  } catch (py::error_already_set& e) {
    std::cerr << "xnpcompile: the session file stays (" << e.what() << ")" << std::endl;
  }
  xpyt::interpreter::shutdown_request_impl();
}
} // namespace npc
