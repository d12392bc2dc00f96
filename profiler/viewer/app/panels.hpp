#pragma once
// The viewer's panels, one file each; every panel draws a part of one SessionView.
#include "npc/viewer/session_comparison.hpp"
#include "npc/viewer/session_view.hpp"
#include "npc/viewer/viewer_model.hpp"
#include "theme.hpp"

namespace npc::viewer {
// What the user chose, kept across frames and reloads.
struct ViewerState {
  std::size_t kernel = 0; // index into report.kernels
  // the timeline's visible span (fitted to the session when it first opens or on a
  // double click) and the slice or marker clicked last (indices; -1: none)
  prof::TimelineView span{};
  bool fitted = false;
  std::ptrdiff_t slice = -1;
  std::ptrdiff_t marker = -1;
  // a range chosen with shift-drag, for its statistics (begin == end: none)
  double range_begin = 0, range_end = 0;
};

void draw_header(const ViewerModel& model, const Theme& t);     // header_panel.cpp
void draw_breaks(const SessionView& v, const Theme& t);         // breaks_panel.cpp
void draw_recompiles(const SessionView& v, const Theme& t);     // recompiles_panel.cpp
void draw_fallbacks(const SessionView& v, const Theme& t);      // fallbacks_panel.cpp
void draw_timing(const SessionView& v, const Theme& t);         // timing_panel.cpp
// Lanes of slices on a time axis: wheel zooms at the pointer, drag pans, shift-drag picks a
// range and shows what it holds, double click fits, hover tells, click shows details (and a
// kernel's source in the kernels panel); `height` is the panel's (timeline_panel.cpp).
void draw_timeline(const SessionView& v, ViewerState& s, const Theme& t, float height);
// The height the timeline panel needs to show every lane (its header and details included).
float timeline_height(const prof::Timeline& tl);
void draw_fusion(const SessionView& v, const Theme& t);         // fusion_panel.cpp
void draw_kernels(const SessionView& v, ViewerState& s, const Theme& t); // kernels_panel.cpp
// Source with line numbers in a scrolling child filling `size` (code_view.cpp).
void draw_code(const HighlightedCode& code, const Theme& t, const char* id, ImVec2 size);
// --compare: two sessions' summaries and what changed, as the whole window (compare_panel.cpp).
void draw_comparison(const SessionView& before, const SessionView& after,
                     const SessionComparison& c, const Theme& t);
// The whole window: header, then the panels in two columns (viewer_window.cpp).
void draw_viewer(const ViewerModel& model, ViewerState& s, const Theme& t);
} // namespace npc::viewer
