#include "npc/prof/attach_client.hpp"

#include <chrono>
#include <sys/socket.h>

#include "npc/prof/attach_frame.hpp"
#include "npc/prof/attach_socket.hpp"

namespace npc::prof {
namespace {
constexpr int kConnectMs = 2000;
constexpr int kHelloMs = 5000;

// The hello's signature did not match the key: not worth asking again.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string identity(const AttachInfo& i) {
  return i.host + ":" + std::to_string(i.port) + " " + i.key;
}
} // namespace

AttachClient::AttachClient(std::function<AttachInfo()> resolve, int retry_ms)
    : resolve_(std::move(resolve)), retry_ms_(retry_ms) {
  thread_ = std::thread([this] { run(); });
}

AttachClient::~AttachClient() { stop(); }

void AttachClient::stop() {
  if (stopping_.exchange(true))
    return;
  const int fd = fd_.load();
  if (fd >= 0)
    ::shutdown(fd, SHUT_RDWR); // wakes a read in progress
  if (thread_.joinable())
    thread_.join();
}

std::optional<nlohmann::json> AttachClient::take_document() {
  std::lock_guard lock(mu_);
  if (!changed_)
    return std::nullopt;
  changed_ = false;
  return doc_;
}

std::string AttachClient::status() const {
  std::lock_guard lock(mu_);
  return status_;
}

void AttachClient::set_status(std::string s) {
  std::lock_guard lock(mu_);
  status_ = std::move(s);
}

bool AttachClient::refused_before(const AttachInfo& info) const {
  std::lock_guard lock(mu_);
  return refused_at_ == identity(info);
}

void AttachClient::run() {
  while (!stopping_) {
    try {
      const AttachInfo info = resolve_();
      if (!refused_before(info))
        session_over(info);
    } catch (const Refused& e) {
      std::lock_guard lock(mu_);
      status_ = e.what();
    } catch (const std::exception& e) {
      set_status(std::string(live_ ? "lost the kernel: " : "not attached: ") + e.what() +
                 "; retrying");
    }
    live_ = false;
    for (int waited = 0; waited < retry_ms_ && !stopping_; waited += 50)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// One connection, from connecting to its end; throws with what ended it.
void AttachClient::session_over(const AttachInfo& info) {
  const std::string where = info.host + ":" + std::to_string(info.port);
  set_status("connecting to " + where);
  Fd fd = connect_to(info.host, info.port, kConnectMs);
  fd_ = fd.get();
  struct Forget {
    std::atomic<int>& fd;
    ~Forget() { fd = -1; }
  } forget{fd_};
  FrameReader reader(info.key);
  auto next = [&](int timeout_ms) -> std::optional<nlohmann::json> {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!stopping_) {
      if (auto msg = reader.next())
        return msg;
      if (read_into(fd.get(), reader, 200) == Read::closed)
        throw std::runtime_error("the connection to " + where + " closed");
      if (timeout_ms >= 0 && std::chrono::steady_clock::now() > until)
        throw std::runtime_error(where + " sent no hello: not an npcompile kernel?");
    }
    return std::nullopt;
  };
  std::optional<nlohmann::json> hello;
  try {
    hello = next(kHelloMs);
  } catch (const AttachError& e) {
    {
      std::lock_guard lock(mu_);
      refused_at_ = identity(info);
    }
    throw Refused("refused: " + where + " does not sign with this key (" + e.what() +
                  "); waiting for the attach file to change");
  }
  if (!hello || (*hello)["type"] != "hello")
    throw std::runtime_error(where + ": no hello");
  const nlohmann::json auth{{"type", "auth"}, {"nonce", hello->value("nonce", "")}};
  if (!send_all(fd.get(), encode_frame(info.key, auth), kConnectMs))
    throw std::runtime_error("the connection to " + where + " closed");
  ++connections_;
  live_ = true;
  set_status("live: pid " + std::to_string(hello->value("pid", 0)) + " at " + where);
  while (auto msg = next(-1)) {
    const std::string type = (*msg)["type"].get<std::string>();
    std::lock_guard lock(mu_);
    if (type == "session" && (*msg)["session"].is_object()) {
      doc_ = std::move((*msg)["session"]);
    } else if (type == "events" && doc_.is_object() && (*msg)["events"].is_array()) {
      for (auto& e : (*msg)["events"])
        doc_["events"].push_back(std::move(e));
      if (msg->contains("threads"))
        doc_["threads"] = (*msg)["threads"];
    } else {
      continue; // a later protocol's message: not ours to read
    }
    events_ = doc_.contains("events") ? doc_["events"].size() : 0;
    changed_ = true;
  }
}
} // namespace npc::prof
