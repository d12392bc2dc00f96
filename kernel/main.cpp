// xnpcompile: the npcompile Jupyter kernel. Debian's Python embedded through
// pybind11, xeus-python's interpreter underneath, xeus's zmq server on top.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include "pybind11/embed.h"
#include "xeus-python/xdebugger.hpp"
#include "xeus-python/xutils.hpp"
#include "xeus/xkernel.hpp"
#include "xeus/xkernel_configuration.hpp"
#include "xeus/xserver_shell_main.hpp"

#include "history_manager.hpp"
#include "interpreter.hpp"
#include "interrupt_handler.hpp"

namespace py = pybind11;

namespace {
constexpr const char* python_executable = NPC_PYTHON_EXECUTABLE;

// Debian's interpreter, configured explicitly: parse_argv off so the kernel's
// own options ("-f file") never reach Python, and no PYTHONHOME guessing,
// which would point at the kernel's prefix instead of /usr.
std::unique_ptr<py::scoped_interpreter> start_python(const char* argv0) {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  config.install_signal_handlers = 1; // SIGINT -> KeyboardInterrupt, used by PyErr_SetInterrupt
  PyStatus status = PyConfig_SetBytesString(&config, &config.executable, python_executable);
  if (PyStatus_Exception(status)) {
    PyConfig_Clear(&config);
    throw std::runtime_error("cannot set the Python executable");
  }
  const char* const argv[] = {argv0};
  return std::make_unique<py::scoped_interpreter>(&config, 1, argv, false);
}
// Jupyter names connection files kernel-<kernel id>.json; other names (a hand-written
// connection file) fall back to the process id.
std::string kernel_id(const std::string& connection_file) {
  const std::string name = std::filesystem::path(connection_file).filename().string();
  if (name.size() > 12 && name.starts_with("kernel-") && name.ends_with(".json"))
    return name.substr(7, name.size() - 12);
  return std::to_string(::getpid());
}
} // namespace

int main(int argc, char* argv[]) {
  if (xpyt::extract_option("-v", "--version", argc, argv)) {
    std::cout << "xnpcompile " << NPC_VERSION << std::endl;
    return 0;
  }
  std::string connection_file = xpyt::extract_parameter("-f", argc, argv);
  if (connection_file.empty()) {
    std::cerr << "usage: xnpcompile -f <connection_file>" << std::endl;
    return 2;
  }

  // Started by Jupyter: xeus's chatter on std::clog would only clutter the
  // server's log (and, as in xeus-python, can hit a closed pipe).
  if (std::getenv("JPY_PARENT_PID") != nullptr) {
    std::clog.setstate(std::ios_base::failbit);
  }

  // Python 3.11 freezes its stdlib modules; debugpy's adapter warns about it on
  // every start. The debugger works regardless (as in xeus-python).
  setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1", 0);

  // Before any thread exists (Python's, zmq's, xeus's), so all of them inherit it.
  npc::interrupt_handler::block_sigint();

  auto python = start_python(argv[0]);
  auto interrupts = std::make_unique<npc::interrupt_handler>();

  auto history = std::make_unique<npc::history_manager>();
  auto interpreter =
      std::make_unique<npc::interpreter>(*history, *interrupts, kernel_id(connection_file),
                                         std::filesystem::absolute(connection_file).string());

  nl::json debugger_config;
  debugger_config["python"] = python_executable;

  auto context = xeus::make_context<zmq::context_t>();
  xeus::xconfiguration config = xeus::load_configuration(connection_file);
  {
    xeus::xkernel kernel(config, xeus::get_user_name(), std::move(context), std::move(interpreter),
                         xeus::make_xserver_shell_main, std::move(history), nullptr,
                         xpyt::make_python_debugger, debugger_config);
    kernel.start();
  }
  return 0;
}
