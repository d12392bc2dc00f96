#include "npc/viewer/guard_diff.hpp"

namespace npc::viewer {
namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

GuardDiff one(std::string_view part) {
  const auto arrow = part.find(" -> ");
  if (arrow == std::string_view::npos)
    return {std::string(part), "", ""};
  const auto left = trim(part.substr(0, arrow));
  // The value before the arrow is the last word of the left side ("shape[0] 10").
  const auto space = left.rfind(' ');
  const auto what = space == std::string_view::npos ? std::string_view() : left.substr(0, space);
  const auto before = space == std::string_view::npos ? left : left.substr(space + 1);
  return {std::string(trim(what)), std::string(before), std::string(trim(part.substr(arrow + 4)))};
}
} // namespace

std::vector<GuardDiff> guard_diffs(std::string_view reason) {
  std::vector<GuardDiff> out;
  // The compiler joins the failed guards with "; ".
  for (std::size_t start = 0; start <= reason.size();) {
    auto end = reason.find("; ", start);
    if (end == std::string_view::npos)
      end = reason.size();
    if (const auto part = trim(reason.substr(start, end - start)); !part.empty())
      out.push_back(one(part));
    start = end + 2;
  }
  return out;
}
} // namespace npc::viewer
