#include "DiskCache.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
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
  std::ifstream f(path_for(key), std::ios::binary);
  if (!f)
    return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  std::string data = ss.str();
  auto bad = [&](const char* why) -> std::optional<std::string> {
    if (note)
      *note = "npcompile: ignored invalid cache file " + path_for(key) + " (" + why + ")";
    return std::nullopt;
  };
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
  std::filesystem::create_directories(dir_, ec);
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
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(blob.data(), static_cast<std::streamsize>(blob.size()));
    f.flush();
    if (!f) {
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
