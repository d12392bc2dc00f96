#include "npc/prof/attach_socket.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <random>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace npc::prof {
Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

void Fd::reset() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

namespace {
std::string os_error(const std::string& what) { return what + ": " + std::strerror(errno); }

sockaddr_in address(const std::string& host, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  const std::string h = host == "localhost" ? "127.0.0.1" : host;
  if (::inet_pton(AF_INET, h.c_str(), &a.sin_addr) != 1)
    throw std::runtime_error("not an IPv4 address: " + host);
  return a;
}
} // namespace

Fd listen_on(const std::string& host, int port, int* bound) {
  const sockaddr_in a = address(host, port);
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd)
    throw std::runtime_error(os_error("socket"));
  const int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error(os_error("bind " + host + ":" + std::to_string(port)));
  if (::listen(fd.get(), 8) != 0)
    throw std::runtime_error(os_error("listen"));
  sockaddr_in got{};
  socklen_t len = sizeof got;
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&got), &len);
  if (bound)
    *bound = ntohs(got.sin_port);
  return fd;
}

Fd connect_to(const std::string& host, int port, int timeout_ms) {
  const sockaddr_in a = address(host, port);
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd)
    throw std::runtime_error(os_error("socket"));
  const std::string where = host + ":" + std::to_string(port);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS)
      throw std::runtime_error(os_error("connect " + where));
    pollfd p{fd.get(), POLLOUT, 0};
    if (::poll(&p, 1, timeout_ms) != 1)
      throw std::runtime_error("connect " + where + ": no answer");
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      errno = err;
      throw std::runtime_error(os_error("connect " + where));
    }
  }
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  const int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool send_all(int fd, std::string_view data, int timeout_ms) {
  while (!data.empty()) {
    pollfd p{fd, POLLOUT, 0};
    if (::poll(&p, 1, timeout_ms) != 1 || (p.revents & (POLLERR | POLLHUP)))
      return false;
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR)
        continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

Read read_into(int fd, FrameReader& reader, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  const int r = ::poll(&p, 1, timeout_ms);
  if (r == 0 || (r < 0 && errno == EINTR))
    return Read::nothing;
  if (r < 0)
    return Read::closed;
  char buf[65536];
  const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
  if (n > 0) {
    reader.feed(buf, static_cast<std::size_t>(n));
    return Read::data;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return Read::nothing;
  return Read::closed;
}

std::string peer_name(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return "?";
  char ip[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(a.sin_port));
}

std::string random_hex(int n) {
  std::random_device rd; // the OS's entropy source
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) {
    const unsigned b = rd() & 0xff;
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}
} // namespace npc::prof
