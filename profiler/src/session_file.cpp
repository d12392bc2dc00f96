#include "npc/prof/session_file.hpp"

#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "npc/prof/atomic_write.hpp"

namespace npc::prof {
std::filesystem::path session_file_name(const Session& session) {
  const std::time_t secs = static_cast<std::time_t>(session.start_unix_us() / 1000000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return "npcompile-" + std::to_string(session.pid()) + "-" + stamp + ".json";
}

std::filesystem::path write_session_file(const Session& session, const std::filesystem::path& dir) {
  return write_session_file(session, dir, session_file_name(session).string());
}

std::filesystem::path write_session_file(const Session& session, const std::filesystem::path& dir,
                                         const std::string& file_name) {
  const std::filesystem::path name(file_name);
  if (file_name.empty() || name.filename() != name || file_name == "." || file_name == "..")
    throw std::invalid_argument("session file name must be a plain file name, got '" +
                                file_name + "'");
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  atomic_write(
      path, nlohmann::json(session).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return path;
}
} // namespace npc::prof
