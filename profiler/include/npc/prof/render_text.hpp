#pragma once
// The report as text/plain for consoles: the same facts as the HTML, in aligned columns.
#include <string>

#include "npc/prof/report.hpp"

namespace npc::prof {
std::string render_text(const Report& report);
} // namespace npc::prof
