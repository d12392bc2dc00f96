#pragma once
// SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104): the live attach signs every message with
// the kernel's key, as Jupyter's channels do. Written here from the standards, so that the
// profiler library needs no crypto library on machines that build it without one.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace npc::prof {
using Digest = std::array<std::uint8_t, 32>;

Digest sha256(std::string_view data);
Digest hmac_sha256(std::string_view key, std::string_view message);
std::string to_hex(const Digest& d);
// hmac_sha256 as lowercase hex, as Jupyter writes its signatures.
std::string hmac_hex(std::string_view key, std::string_view message);
// Compares in time independent of where the strings differ (a signature check).
bool equal_constant_time(std::string_view a, std::string_view b);
} // namespace npc::prof
