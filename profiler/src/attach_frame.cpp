#include "npc/prof/attach_frame.hpp"

#include "npc/prof/sha256.hpp"

namespace npc::prof {
namespace {
constexpr std::size_t kSig = 64;
}

std::string encode_frame(std::string_view key, const nlohmann::json& body) {
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::size_t n = kSig + text.size();
  std::string out;
  out.reserve(4 + n);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  out += hmac_hex(key, text);
  out += text;
  return out;
}

FrameReader::FrameReader(std::string key, std::size_t max_bytes)
    : key_(std::move(key)), max_(max_bytes) {}

void FrameReader::feed(const char* data, std::size_t n) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  buf_.append(data, n);
}

std::optional<nlohmann::json> FrameReader::next() {
  if (buffered() < 4)
    return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
  const std::size_t n = std::size_t(p[0]) << 24 | std::size_t(p[1]) << 16 |
                        std::size_t(p[2]) << 8 | std::size_t(p[3]);
  if (n < kSig + 2 || n > max_)
    throw AttachError("a frame of " + std::to_string(n) + " bytes (a frame holds 66 to " +
                      std::to_string(max_) + ")");
  if (buffered() < 4 + n)
    return std::nullopt;
  const std::string_view sig(buf_.data() + pos_ + 4, kSig);
  const std::string_view text(buf_.data() + pos_ + 4 + kSig, n - kSig);
  if (!equal_constant_time(sig, hmac_hex(key_, text)))
    throw AttachError("a frame whose signature does not match the key");
  nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
  pos_ += 4 + n;
  if (pos_ == buf_.size() || pos_ > (std::size_t{1} << 20)) { // drop what was read
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  if (body.is_discarded() || !body.is_object() || !body.contains("type") ||
      !body["type"].is_string())
    throw AttachError("a signed frame that is not a JSON object with a \"type\"");
  return body;
}
} // namespace npc::prof
