#pragma once
// The notebook report: ONE self-contained HTML fragment (no external resources, no script)
// that renders in Jupyter Notebook 6, JupyterLab and nbconvert's HTML export. Its CSS is
// scoped under the root class npcprof-v1 and never restyles the page around it.
#include <string>

#include "npc/prof/report.hpp"

namespace npc::prof {
inline constexpr const char* kHtmlRootClass = "npcprof-v1";
std::string render_html(const Report& report);
} // namespace npc::prof
