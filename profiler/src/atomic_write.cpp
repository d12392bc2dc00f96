#include "npc/prof/atomic_write.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <fcntl.h>
#include <unistd.h>

namespace npc::prof {
void atomic_write(const std::filesystem::path& path, std::string_view contents) {
  auto tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  // 0600, created here and never through a link: a session file holds the cells' source
  std::remove(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  std::FILE* f = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
  if (!f) {
    const int err = errno;
    if (fd >= 0)
      ::close(fd);
    throw std::runtime_error("cannot write " + tmp.string() + ": " + std::strerror(err));
  }
  bool ok = std::fwrite(contents.data(), 1, contents.size(), f) == contents.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (::fsync(::fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(err));
  }
}
} // namespace npc::prof
