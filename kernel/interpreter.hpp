#pragma once

#include <memory>
#include <string>

#include "nlohmann/json.hpp"
#include "xeus-python/xinterpreter.hpp"

#include "comm_target.hpp"
#include "history_manager.hpp"
#include "interrupt_handler.hpp"

namespace npc {
// xeus-python's interpreter with npcompile's hooks: the package and its magics
// loaded at start-up, interrupts, real history line numbers, the comm target,
// the kernel's own name and version, and bare exception class names.
class interpreter final : public xpyt::interpreter {
public:
  // `kernel_id` names the kernel's session file (npcompile-session-<kernel_id>.json); the
  // connection file's key signs the live attach (npcompile/attach.py).
  interpreter(history_manager& history, interrupt_handler& interrupts, std::string kernel_id,
              std::string connection_file);
  ~interpreter() override;

private:
  void configure_impl() override;
  nl::json execute_request_impl(int execution_counter, const std::string& code, bool silent,
                                bool store_history, nl::json user_expressions,
                                bool allow_stdin) override;
  nl::json kernel_info_request_impl() override;
  void shutdown_request_impl() override;
  void instanciate_ipython_shell() override;

  void bridge_comm_package();
  void buffer_streams_by_lines();
  void load_npcompile();
  void autosave_session();
  void serve_attach();
  void drain_pending_interrupt();
  void end_cell_streams(nl::json& reply);
  void record_history(int execution_counter, bool store_history);

  history_manager& m_history;
  interrupt_handler& m_interrupts;
  std::unique_ptr<comm_target> m_comm_target;
  std::string m_kernel_id;
  std::string m_connection_file;
  bool m_npcompile_loaded = false;
};
} // namespace npc
