#pragma once
// The TCP plumbing both ends of the live attach share (POSIX sockets, blocking calls bounded
// by poll(2) timeouts, so that no peer can hang the other).
#include <string>
#include <string_view>

#include "npc/prof/attach_frame.hpp"

namespace npc::prof {
// Owns a file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release();
  void reset();
  explicit operator bool() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

// A listening socket on host:port (port 0: any free one); the port bound goes to *bound.
// Throws std::runtime_error with the OS's reason.
Fd listen_on(const std::string& host, int port, int* bound);
// A connected socket, or throws std::runtime_error ("connection refused" and the like).
Fd connect_to(const std::string& host, int port, int timeout_ms);
// Writes all of data within timeout_ms; false when the peer is gone or too slow.
bool send_all(int fd, std::string_view data, int timeout_ms);

enum class Read { data, nothing, closed };
// Feeds what arrives within timeout_ms to the reader: data, nothing yet, or the peer closed
// (or the connection failed).
Read read_into(int fd, FrameReader& reader, int timeout_ms);
// "127.0.0.1:52114": the peer's address, for the log.
std::string peer_name(int fd);
// n random bytes as hex (the handshake's nonces).
std::string random_hex(int n);
} // namespace npc::prof
