#pragma once
// The kernel's end of the live attach: a thread that listens on loopback, and streams the
// session's events to every viewer that proves it holds the key.
//
//   server -> viewer  hello   {"nonce", "pid", "version"}
//   viewer -> server  auth    {"nonce": the hello's}            signed with the key
//   server -> viewer  session {"session": the whole session document}
//   server -> viewer  events  {"events": [...], "threads": {...}}   what was added since
// A whole session again whenever the viewer missed events (the session was cleared, or
// the oldest were dropped). A wrong key, a malformed frame or no auth within 5 s: the
// connection is closed and the refusal logged (stderr and log()); nothing else changes.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "npc/prof/session.hpp"

namespace npc::prof {
class AttachServer {
public:
  // Listens at once (port 0: any free one); throws std::runtime_error when it cannot.
  AttachServer(const Session& session, std::string key, const std::string& host = "127.0.0.1",
               int port = 0, int interval_ms = 100);
  ~AttachServer();
  AttachServer(const AttachServer&) = delete;
  AttachServer& operator=(const AttachServer&) = delete;

  int port() const { return port_; }
  int viewers() const { return viewers_.load(); }   // authenticated, connected now
  int refused() const { return refused_.load(); }   // connections refused so far
  std::vector<std::string> log() const;
  void stop();

private:
  struct Peer;
  void run();
  void accept_one();
  bool serve(Peer& p);      // false: drop it
  bool push(Peer& p);
  void refuse(Peer& p, const std::string& why);

  const Session& session_;
  std::string key_;
  int port_ = 0;
  int interval_ms_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::vector<std::unique_ptr<Peer>> peers_{};
  std::atomic<int> viewers_{0};
  std::atomic<int> refused_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex log_mu_;
  std::vector<std::string> log_{};
  std::thread thread_;
};
} // namespace npc::prof
