#pragma once
// The live attach's messages (npcompile-viewer --attach): each a frame of
//   4 bytes: the length of what follows (big-endian)
//   64 bytes: HMAC-SHA256 of the body under the kernel's key, in lowercase hex
//   the body: one JSON object with a "type"
// signed as Jupyter signs its channels' messages, so that only a holder of the key (from the
// kernel's connection file) can read or drive the stream. Both sides check every frame.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace npc::prof {
// A frame that is not one: a wrong signature, a length past the limit, a body that is not a
// JSON object. The connection it came on is dropped.
struct AttachError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The largest frame either side takes (a whole session of 200,000 events fits).
inline constexpr std::size_t kMaxFrameBytes = std::size_t{512} << 20;

std::string encode_frame(std::string_view key, const nlohmann::json& body);

// Frames out of a byte stream, as its bytes arrive.
class FrameReader {
public:
  explicit FrameReader(std::string key, std::size_t max_bytes = kMaxFrameBytes);
  void feed(const char* data, std::size_t n);
  // The next whole frame's body, checked; nullopt until one is whole. Throws AttachError.
  std::optional<nlohmann::json> next();
  std::size_t buffered() const { return buf_.size() - pos_; }

private:
  std::string key_;
  std::size_t max_;
  std::string buf_{};
  std::size_t pos_ = 0;
};
} // namespace npc::prof
