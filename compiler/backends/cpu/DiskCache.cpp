#include "DiskCache.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npc {

namespace {
// File layout: magic | u64 key length | key | u64 payload length | u64 checksum | payload.
constexpr char kMagic[8] = {'N', 'P', 'C', 'O', 'B', 'J', '1', '\n'};

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

void put_u64(std::string& out, uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Larger files are not read: no object file of ours comes near it.
constexpr off_t kMaxFile = off_t{256} << 20;

// The folder itself: a real folder (not a link) of this user, 0700. One that another
// user owns, or that is open to others and cannot be made private, turns the disk
// cache off (note says why): a shared folder would let another user plant objects
// that this process would run.
bool private_dir(const std::string& dir, std::string* note) {
  std::error_code ec;
  std::filesystem::path p(dir);
  // each folder made here is made 0700 (create_directories would use the umask)
  std::filesystem::path at;
  for (const auto& part : p) {
    at /= part;
    if (at == at.root_path() || at.empty())
      continue;
    if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST)
      break;
  }
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    if (note)
      *note = "npcompile: the cache folder " + dir + " is not a folder; disk cache off";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    if (note)
      *note = "npcompile: the cache folder " + dir + " belongs to another user; disk cache off";
    return false;
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    if (note)
      *note = "npcompile: the cache folder " + dir + " is open to others; disk cache off";
    return false;
  }
  return true;
}

bool get_u64(const std::string& in, size_t& pos, uint64_t& v) {
  if (in.size() - pos < sizeof v)
    return false;
  std::memcpy(&v, in.data() + pos, sizeof v);
  pos += sizeof v;
  return true;
}
} // namespace

std::string DiskCache::path_for(const std::string& key) const { return dir_ + "/" + key + ".o"; }

std::optional<std::string> DiskCache::load(const std::string& key, std::string* note) const {
  auto bad = [&](const char* why) -> std::optional<std::string> {
    if (note)
      *note = "npcompile: ignored invalid cache file " + path_for(key) + " (" + why + ")";
    return std::nullopt;
  };
  if (!private_dir(dir_, note))
    return std::nullopt;
  // A link, a FIFO or a device planted under the key's name is never followed, waited
  // on or read: only a regular file of this user, of a sane size.
  const int fd = ::open(path_for(key).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? std::nullopt : bad("not a file that can be opened");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      st.st_size > kMaxFile) {
    ::close(fd);
    return bad("not a regular file of this user, or too large");
  }
  std::string data(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < data.size()) {
    const ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n <= 0)
      break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    return bad("bad header");
  size_t pos = sizeof kMagic;
  uint64_t key_len = 0, len = 0, sum = 0;
  if (!get_u64(data, pos, key_len) || key_len != key.size() || data.size() - pos < key_len)
    return bad("bad key");
  if (data.compare(pos, key_len, key) != 0)
    return bad("key mismatch");
  pos += key_len;
  if (!get_u64(data, pos, len) || !get_u64(data, pos, sum))
    return bad("truncated header");
  if (data.size() - pos != len)
    return bad("truncated payload");
  if (fnv1a(data.data() + pos, len) != sum)
    return bad("checksum mismatch");
  return data.substr(pos);
}

bool DiskCache::store(const std::string& key, const std::string& payload, std::string* note) const {
  static std::atomic<uint64_t> counter{0};
  std::error_code ec;
  if (!private_dir(dir_, note))
    return false;
  std::string blob(kMagic, sizeof kMagic);
  put_u64(blob, key.size());
  blob += key;
  put_u64(blob, payload.size());
  put_u64(blob, fnv1a(payload.data(), payload.size()));
  blob += payload;
  // Unique per process and call, so concurrent writers never share a temp file;
  // rename() is atomic within a file system, last writer wins with identical bytes.
  std::string tmp =
      path_for(key) + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    // a new file of ours, 0600, never through a link someone left in the way
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t put = 0;
    while (fd >= 0 && put < blob.size()) {
      const ssize_t n = ::write(fd, blob.data() + put, blob.size() - put);
      if (n <= 0)
        break;
      put += static_cast<size_t>(n);
    }
    if (fd >= 0)
      ::close(fd);
    if (fd < 0 || put != blob.size()) {
      std::filesystem::remove(tmp, ec);
      if (note)
        *note = "npcompile: could not write cache file " + tmp;
      return false;
    }
  }
  std::filesystem::rename(tmp, path_for(key), ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    if (note)
      *note = "npcompile: could not rename cache file into " + path_for(key);
    return false;
  }
  return true;
}

} // namespace npc
