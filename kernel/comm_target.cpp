#include "comm_target.hpp"

#include "nlohmann/json.hpp"

namespace nl = nlohmann;

namespace npc {
comm_target::comm_target(xeus::xcomm_manager& manager) : m_manager(manager) {
  m_manager.register_comm_target(name, [this](xeus::xcomm&& comm, xeus::xmessage request) {
    open(std::move(comm), std::move(request));
  });
}

comm_target::~comm_target() { m_manager.unregister_comm_target(name); }

void comm_target::open(xeus::xcomm&& comm, xeus::xmessage /*request*/) {
  collect_closed();
  auto owned = std::make_unique<xeus::xcomm>(std::move(comm));
  xeus::xcomm* self = owned.get();
  xeus::xguid id = self->id();
  self->on_message([self](xeus::xmessage msg) {
    nl::json data = msg.content().value("data", nl::json::object());
    nl::json answer = {{"ok", true}, {"echo", std::move(data)}, {"version", NPC_VERSION}};
    self->send(nl::json::object(), std::move(answer), xeus::buffer_sequence());
  });
  self->on_close([this, id](xeus::xmessage) { m_closed.push_back(id); });
  m_comms[id] = std::move(owned);
}

void comm_target::collect_closed() {
  for (const xeus::xguid& id : m_closed) {
    m_comms.erase(id);
  }
  m_closed.clear();
}
} // namespace npc
