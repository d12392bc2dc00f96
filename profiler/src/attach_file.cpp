#include "npc/prof/attach_file.hpp"

#include <cerrno>
#include <csignal>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <sys/stat.h>

#include "npc/prof/atomic_write.hpp"
#include "npc/prof/file_text.hpp"

namespace npc::prof {
namespace {
const std::string kPrefix = "npcompile-attach-";

nlohmann::json read_json(const std::filesystem::path& path) {
  nlohmann::json j = nlohmann::json::parse(read_file_text(path), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw std::runtime_error(path.string() + ": not a JSON object");
  return j;
}

std::string kernel_key(const std::filesystem::path& connection_file) {
  const nlohmann::json c = read_json(connection_file);
  if (!c.contains("key") || !c["key"].is_string())
    throw std::runtime_error(connection_file.string() + ": no \"key\" (not a connection file)");
  return c["key"].get<std::string>();
}

bool alive(int pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }
} // namespace

void write_attach_file(const std::filesystem::path& path, const AttachInfo& info) {
  nlohmann::json j{{"npcompile_attach", 1}, {"host", info.host}, {"port", info.port},
                   {"pid", info.pid}};
  if (!info.connection_file.empty())
    j["connection_file"] = info.connection_file.string();
  else
    j["key"] = info.key;
  // created 0600 before anything is written into it (atomic_write renames a temporary)
  const mode_t old = ::umask(077);
  try {
    atomic_write(path, j.dump(1) + "\n");
  } catch (...) {
    ::umask(old);
    throw;
  }
  ::umask(old);
}

std::filesystem::path attach_file_for(const std::filesystem::path& connection_file) {
  return connection_file.parent_path() / (kPrefix + connection_file.filename().string());
}

AttachInfo read_attach(const std::filesystem::path& path) {
  nlohmann::json j = read_json(path);
  std::filesystem::path attach = path;
  if (!j.contains("npcompile_attach")) {
    if (!j.contains("shell_port"))
      throw std::runtime_error(path.string() +
                               ": neither an npcompile attach file nor a kernel connection file");
    attach = attach_file_for(path); // a kernel's connection file: its attach file beside it
    if (!std::filesystem::exists(attach))
      throw std::runtime_error("no " + attach.string() +
                               " (is the kernel an npcompile kernel, and running?)");
    j = read_json(attach);
  }
  AttachInfo info;
  info.host = j.value("host", info.host);
  info.port = j.value("port", 0);
  info.pid = j.value("pid", 0);
  if (j.contains("key") && j["key"].is_string()) {
    info.key = j["key"].get<std::string>();
  } else if (j.contains("connection_file") && j["connection_file"].is_string()) {
    info.connection_file = j["connection_file"].get<std::string>();
    info.key = kernel_key(path == attach ? info.connection_file : path);
  } else {
    throw std::runtime_error(attach.string() + ": no key and no connection file");
  }
  if (info.port <= 0 || info.port > 65535)
    throw std::runtime_error(attach.string() + ": no port");
  return info;
}

std::filesystem::path newest_live_attach(const std::filesystem::path& dir) {
  std::filesystem::path best;
  std::filesystem::file_time_type best_time{};
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || entry.path().extension() != ".json")
      continue;
    try {
      if (!alive(read_json(entry.path()).value("pid", 0)))
        continue;
    } catch (const std::exception&) {
      continue;
    }
    const auto t = entry.last_write_time(ec);
    if (best.empty() || t > best_time) {
      best = entry.path();
      best_time = t;
    }
  }
  return best;
}
} // namespace npc::prof
