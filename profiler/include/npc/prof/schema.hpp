#pragma once
// The one versioned schema every exported document carries.
#include <string_view>

namespace npc::prof {
inline constexpr std::string_view kSchemaName = "npcompile.profile";
inline constexpr int kSchemaVersion = 1;
} // namespace npc::prof
