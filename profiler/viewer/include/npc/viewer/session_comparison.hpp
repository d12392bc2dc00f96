#pragma once
// Two sessions side by side (npcompile-viewer --compare BEFORE AFTER): a change to a program
// or to npcompile, judged by what the profiler saw. Display-free, so it is unit-tested.
//   - the headline numbers, each with its change and whether that is better or worse;
//   - per traced function: calls, graphs, breaks, compile time and kernel time;
//   - graph breaks matched by reason and source line text (line numbers move when code is
//     edited): fixed, new, or happening more or less often.
#include <cstdint>
#include <string>
#include <vector>

#include "npc/prof/report.hpp"

namespace npc::viewer {
struct ComparedNumber {
  std::string what{};
  double before = 0.0;
  double after = 0.0;
  bool lower_is_better = true;
  bool is_time = false; // milliseconds
};

struct ComparedFunction {
  std::string function{};
  std::int64_t calls_before = 0, calls_after = 0;
  std::int64_t breaks_before = 0, breaks_after = 0;
  double compile_ms_before = 0.0, compile_ms_after = 0.0;
  double kernel_ms_before = 0.0, kernel_ms_after = 0.0;
};

struct ComparedBreak {
  std::string reason{};
  std::string code{};  // the line's text (or "file:line" where none was recorded)
  std::string where{}; // file:line, in the newer session where it still happens
  std::int64_t before = 0;
  std::int64_t after = 0;
  std::string verdict() const; // "fixed", "new", "fewer", "more", "same"
};

// Worse, better or neither: what a change means for a number (a 2% move is "same").
enum class Change { better, worse, same };
Change change_of(const ComparedNumber& n);
// "-42% (2.4x less)", "+15%", "new", "0 -> 3": a change in words.
std::string change_text(double before, double after);

struct SessionComparison {
  std::vector<ComparedNumber> summary{};
  std::vector<ComparedFunction> functions{}; // by kernel time after, then before
  std::vector<ComparedBreak> breaks{};       // fixed and new first

  static SessionComparison of(const prof::Report& before, const prof::Report& after);
};
} // namespace npc::viewer
