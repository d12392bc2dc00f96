#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xeus/xcomm.hpp"

namespace npc {
// The "npcompile" comm target: frontends (the notebook report, the tests)
// open a comm to it and get every message answered on the same comm with
// {"ok": true, "echo": <data>, "version": <kernel version>}.
// Callbacks run on the shell thread without the GIL, and touch no Python.
class comm_target {
public:
  static constexpr const char* name = "npcompile";

  explicit comm_target(xeus::xcomm_manager& manager);
  ~comm_target();
  comm_target(const comm_target&) = delete;
  comm_target& operator=(const comm_target&) = delete;

private:
  void open(xeus::xcomm&& comm, xeus::xmessage request);
  void collect_closed();

  xeus::xcomm_manager& m_manager;
  // xeus only keeps raw pointers: a comm nobody owns is unregistered at once.
  std::map<xeus::xguid, std::unique_ptr<xeus::xcomm>> m_comms;
  // A comm cannot be destroyed inside its own close handler; it waits here.
  std::vector<xeus::xguid> m_closed;
};
} // namespace npc
