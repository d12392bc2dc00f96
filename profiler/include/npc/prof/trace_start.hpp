#pragma once
// The tracer started tracing a function (or a %%npcompile cell), ended by a trace_end; or
// a jitted call replayed an earlier trace's compiled program without tracing (replay),
// recorded once at its end with its length as ms.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct TraceStart {
  static constexpr std::string_view kType = "trace_start";
  static constexpr std::array<std::string_view, 5> kFields{"function", "filename", "lineno",
                                                            "replay", "ms"};
  std::string function{}; // required
  std::string filename{};
  std::int64_t lineno = 0;
  bool replay = false;
  double ms = 0.0; // a replay's length (a traced call's ends at its trace_end)
  bool operator==(const TraceStart&) const = default;
};

void to_json(nlohmann::json& j, const TraceStart& v);
void from_json(const nlohmann::json& j, TraceStart& v);
} // namespace npc::prof
