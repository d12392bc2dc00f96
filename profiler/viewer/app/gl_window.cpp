#include "gl_window.hpp"

#define GLFW_INCLUDE_NONE
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stdexcept>
#include <string>

namespace npc::viewer {
namespace {
std::string glfw_error() {
  const char* what = nullptr;
  glfwGetError(&what);
  return what ? what : "unknown GLFW error";
}
} // namespace

GlWindow::GlWindow(int width, int height, bool visible, const char* title) {
  if (!glfwInit())
    throw std::runtime_error("cannot open a display (" + glfw_error() +
                             "); for --screenshot without one, run under xvfb-run");
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  window_ = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (!window_) {
    const auto why = glfw_error();
    glfwTerminate();
    throw std::runtime_error("cannot create an OpenGL 3.3 window (" + why + ")");
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr; // the layout is fixed: nothing to remember
  ImGui_ImplGlfw_InitForOpenGL(window_, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
}

GlWindow::~GlWindow() {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

bool GlWindow::should_close() const { return glfwWindowShouldClose(window_); }

void GlWindow::wait(double seconds) const { glfwWaitEventsTimeout(seconds); }

void GlWindow::framebuffer_size(int& width, int& height) const {
  glfwGetFramebufferSize(window_, &width, &height);
}

void GlWindow::new_frame(std::optional<ImVec2> size) const {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  if (size) {
    ImGui::GetIO().DisplaySize = *size;
    ImGui::GetIO().DisplayFramebufferScale = {1, 1};
  }
  ImGui::NewFrame();
}

void GlWindow::render(int width, int height, bool present) const {
  ImGui::Render();
  glViewport(0, 0, width, height);
  glClearColor(1, 1, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (present)
    glfwSwapBuffers(window_);
}
} // namespace npc::viewer
