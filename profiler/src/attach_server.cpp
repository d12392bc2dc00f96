#include "npc/prof/attach_server.hpp"

#include <chrono>
#include <fcntl.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "npc/prof/attach_frame.hpp"
#include "npc/prof/attach_socket.hpp"

namespace npc::prof {
namespace {
constexpr int kAuthMs = 5000; // to prove the key, from the connection
constexpr int kSendMs = 5000; // a viewer that takes longer to read is dropped
constexpr int kVersion = 1;
using Clock = std::chrono::steady_clock;
} // namespace

struct AttachServer::Peer {
  Fd fd;
  std::string name;
  FrameReader reader;
  std::string nonce;
  bool authed = false;
  Clock::time_point deadline;
  std::uint64_t next = 0;
  std::uint64_t epoch = 0; // 0: has no session yet
  Peer(Fd f, std::string key)
      : fd(std::move(f)), name(peer_name(fd.get())), reader(std::move(key), kMaxFrameBytes),
        nonce(random_hex(16)), deadline(Clock::now() + std::chrono::milliseconds(kAuthMs)) {}
};

AttachServer::AttachServer(const Session& session, std::string key, const std::string& host,
                           int port, int interval_ms)
    : session_(session), key_(std::move(key)), interval_ms_(interval_ms) {
  if (key_.empty())
    throw std::runtime_error("the live attach needs a key");
  Fd l = listen_on(host, port, &port_);
  if (::pipe2(wake_, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe for the attach thread");
  listen_fd_ = l.release();
  thread_ = std::thread([this] { run(); });
}

AttachServer::~AttachServer() { stop(); }

void AttachServer::stop() {
  if (stopping_.exchange(true))
    return;
  const char c = 0;
  (void)!::write(wake_[1], &c, 1);
  if (thread_.joinable())
    thread_.join();
  peers_.clear();
  for (int fd : {listen_fd_, wake_[0], wake_[1]})
    if (fd >= 0)
      ::close(fd);
  listen_fd_ = wake_[0] = wake_[1] = -1;
  viewers_ = 0;
}

std::vector<std::string> AttachServer::log() const {
  std::lock_guard lock(log_mu_);
  return log_;
}

void AttachServer::refuse(Peer& p, const std::string& why) {
  const std::string line = "npcompile attach: refused " + p.name + ": " + why;
  std::cerr << line << std::endl;
  {
    std::lock_guard lock(log_mu_);
    if (log_.size() < 1000)
      log_.push_back(line);
  }
  ++refused_;
}

void AttachServer::run() {
  while (!stopping_) {
    std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& p : peers_)
      fds.push_back({p->fd.get(), POLLIN, 0});
    ::poll(fds.data(), fds.size(), interval_ms_);
    if (stopping_ || (fds[0].revents & POLLIN))
      break;
    if (fds[1].revents & POLLIN)
      accept_one();
    std::vector<std::unique_ptr<Peer>> kept;
    int viewers = 0;
    for (auto& p : peers_) {
      if (serve(*p)) {
        viewers += p->authed ? 1 : 0;
        kept.push_back(std::move(p));
      }
    }
    peers_ = std::move(kept);
    viewers_ = viewers;
  }
}

void AttachServer::accept_one() {
  Fd fd(::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd || peers_.size() >= 16)
    return;
  auto p = std::make_unique<Peer>(std::move(fd), key_);
  const nlohmann::json hello{{"type", "hello"}, {"version", kVersion}, {"nonce", p->nonce},
                             {"pid", session_.pid()}};
  if (send_all(p->fd.get(), encode_frame(key_, hello), kSendMs))
    peers_.push_back(std::move(p));
}

bool AttachServer::serve(Peer& p) {
  const Read r = read_into(p.fd.get(), p.reader, 0);
  if (r == Read::closed) {
    // a viewer with a wrong key finds the hello's signature wrong and leaves unproven
    if (!p.authed)
      refuse(p, "closed before proving the key (a viewer with a wrong key?)");
    return false; // gone
  }
  try {
    while (auto msg = p.reader.next()) {
      if (p.authed)
        continue; // a viewer says nothing after its auth; what it says is ignored
      if ((*msg)["type"] != "auth" || !msg->contains("nonce") || (*msg)["nonce"] != p.nonce) {
        refuse(p, "its first message is not the auth of this connection");
        return false;
      }
      p.authed = true;
    }
  } catch (const AttachError& e) {
    refuse(p, e.what());
    return false;
  }
  if (!p.authed) {
    if (Clock::now() > p.deadline) {
      refuse(p, "no auth within 5 s");
      return false;
    }
    return true;
  }
  return push(p);
}

bool AttachServer::push(Peer& p) {
  Session::Tail t = session_.tail(p.next, p.epoch);
  nlohmann::json msg;
  if (!t.continues) {
    msg = {{"type", "session"}, {"session", session_}};
    msg["session"]["events"] = t.events; // the events `next` counts, whatever came since
  } else if (!t.events.empty()) {
    msg = {{"type", "events"}, {"events", t.events}, {"threads", thread_names_json(session_)}};
  } else {
    return true;
  }
  p.next = t.next;
  p.epoch = t.epoch;
  return send_all(p.fd.get(), encode_frame(key_, msg), kSendMs);
}
} // namespace npc::prof
