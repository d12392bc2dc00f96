#pragma once
// The viewer's end of the live attach (attach_server.hpp says the protocol): a thread that
// connects, proves the key, and keeps the session document the kernel streams; it
// reconnects after the kernel restarts or the connection drops, asking `resolve` (the
// attach file, read again: a restarted kernel listens on a new port) before each attempt.
// The UI thread takes the document when it changed and never waits on the network. A
// kernel that does not sign with this key is not asked again until the attach file names
// another port or key (it would log a refusal at every attempt).
#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "npc/prof/attach_file.hpp"

namespace npc::prof {
class AttachClient {
public:
  explicit AttachClient(std::function<AttachInfo()> resolve, int retry_ms = 1000);
  ~AttachClient();
  AttachClient(const AttachClient&) = delete;
  AttachClient& operator=(const AttachClient&) = delete;

  // The session document (as a session file holds it) when it changed since the last call.
  std::optional<nlohmann::json> take_document();
  // "live: pid 4242 at 127.0.0.1:52114", "connecting to ...", "refused: ...", "lost ...".
  std::string status() const;
  bool live() const { return live_.load(); }
  int connections() const { return connections_.load(); } // handshakes that succeeded
  std::size_t events() const { return events_.load(); }    // in the document now
  void stop();

private:
  void run();
  void session_over(const AttachInfo& info);
  bool refused_before(const AttachInfo& info) const;
  void set_status(std::string s);

  std::function<AttachInfo()> resolve_;
  int retry_ms_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> live_{false};
  std::atomic<int> connections_{0};
  std::atomic<std::size_t> events_{0};
  std::atomic<int> fd_{-1};
  mutable std::mutex mu_;
  nlohmann::json doc_{};
  bool changed_ = false;
  std::string status_{"connecting"};
  std::string refused_at_{}; // host:port and key of the kernel that refused, or empty
  std::thread thread_;
};
} // namespace npc::prof
