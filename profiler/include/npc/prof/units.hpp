#pragma once
// Human-readable numbers shared by the HTML and text renderers.
#include <cstdint>
#include <string>

namespace npc::prof {
struct Units {
  static std::string ms(double ms);             // "0.042 ms", "3.10 ms", "41.2 ms", "1.52 s"
  static std::string timed_ms(double ms);       // ms(), or "-" where nothing was timed (<= 0)
  static std::string bytes(std::int64_t bytes); // "512 B", "1.5 KB", "8.0 MB", "1.20 GB"
  static std::string fixed(double v, int digits);
  static std::string speedup(double x); // "3.9×" ("" when unknown)
  static std::string gbps(double gbps); // "12.3 GB/s" ("" when unknown)
};
} // namespace npc::prof
