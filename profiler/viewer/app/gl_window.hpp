#pragma once
// The GLFW window, its OpenGL context and ImGui's GLFW + OpenGL 3 backends (from Debian's
// libimgui-dev), created and torn down together.
#include <imgui.h>
#include <optional>

struct GLFWwindow;

namespace npc::viewer {
class GlWindow {
public:
  // Throws std::runtime_error when there is no display or no OpenGL 3 context.
  GlWindow(int width, int height, bool visible, const char* title);
  ~GlWindow();
  GlWindow(const GlWindow&) = delete;
  GlWindow& operator=(const GlWindow&) = delete;

  bool should_close() const;
  // Sleeps until input arrives or `seconds` pass: the viewer idles between reloads.
  void wait(double seconds) const;
  // Starts an ImGui frame; `size` overrides the window's (offscreen frames).
  void new_frame(std::optional<ImVec2> size = std::nullopt) const;
  // Renders the frame into the bound framebuffer, then shows it unless offscreen.
  void render(int width, int height, bool present) const;
  void framebuffer_size(int& width, int& height) const;

private:
  GLFWwindow* window_ = nullptr;
};
} // namespace npc::viewer
