// ui_bridge: the one C++ file of Strider. It exposes a handful of Dear ImGui
// calls to C (see ui.h). Keep it thin: no application logic lives here.
#include "ui/ui.h"

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <backends/imgui_impl_sdl.h>

#include <cstdarg>

static bool g_ui_ready = false;

extern "C" bool ui_init(SDL_Window *window, void *gl_context)
{
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO &io = ImGui::GetIO();
    // No imgui.ini next to wherever the binary runs from.
    io.IniFilename = nullptr;
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    ImGui::StyleColorsDark();
    ImGuiStyle &style = ImGui::GetStyle();
    style.WindowRounding = 4.0f;
    style.FrameRounding = 3.0f;
    style.Colors[ImGuiCol_WindowBg].w = 0.88f;
    if (!ImGui_ImplSDL2_InitForOpenGL(window, gl_context))
        return false;
    if (!ImGui_ImplOpenGL3_Init("#version 430 core")) {
        ImGui_ImplSDL2_Shutdown();
        return false;
    }
    g_ui_ready = true;
    return true;
}

extern "C" void ui_shutdown(void)
{
    if (!g_ui_ready)
        return;
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    g_ui_ready = false;
}

extern "C" bool ui_process_event(const SDL_Event *ev)
{
    if (!g_ui_ready)
        return false;
    ImGui_ImplSDL2_ProcessEvent(ev);
    const ImGuiIO &io = ImGui::GetIO();
    switch (ev->type) {
    case SDL_KEYDOWN:
    case SDL_KEYUP:
    case SDL_TEXTINPUT: return io.WantCaptureKeyboard;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
    case SDL_MOUSEMOTION:
    case SDL_MOUSEWHEEL: return io.WantCaptureMouse;
    default: return false;
    }
}

extern "C" bool ui_wants_keyboard(void) { return g_ui_ready && ImGui::GetIO().WantCaptureKeyboard; }

extern "C" void ui_new_frame(void)
{
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
}

extern "C" void ui_render(void)
{
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

extern "C" bool ui_begin(const char *title, bool *open, float x, float y, float w, float h)
{
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_FirstUseEver);
    return ImGui::Begin(title, open);
}

extern "C" void ui_end(void) { ImGui::End(); }

extern "C" bool ui_header(const char *label, bool default_open)
{
    return ImGui::CollapsingHeader(label, default_open ? ImGuiTreeNodeFlags_DefaultOpen : 0);
}

extern "C" void ui_text(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ImGui::TextV(fmt, ap);
    va_end(ap);
}

extern "C" void ui_text_colored(float r, float g, float b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ImGui::TextColoredV(ImVec4(r, g, b, 1.0f), fmt, ap);
    va_end(ap);
}

extern "C" void ui_separator(void) { ImGui::Separator(); }
extern "C" void ui_same_line(void) { ImGui::SameLine(); }
extern "C" bool ui_checkbox(const char *label, bool *v) { return ImGui::Checkbox(label, v); }

extern "C" bool ui_checkbox_flags(const char *label, unsigned *flags, unsigned bit)
{
    return ImGui::CheckboxFlags(label, flags, bit);
}

extern "C" bool ui_slider_float(const char *label, float *v, float lo, float hi, const char *fmt)
{
    return ImGui::SliderFloat(label, v, lo, hi, fmt ? fmt : "%.3f");
}

extern "C" bool ui_slider_int(const char *label, int *v, int lo, int hi) { return ImGui::SliderInt(label, v, lo, hi); }
extern "C" bool ui_button(const char *label) { return ImGui::Button(label); }

extern "C" bool ui_combo(const char *label, int *current, const char *const *items, int count)
{
    return ImGui::Combo(label, current, items, count);
}

extern "C" void ui_plot_lines(const char *label, const float *values, int count, float lo, float hi, float height,
                              const char *overlay)
{
    ImGui::PlotLines(label, values, count, 0, overlay, lo, hi, ImVec2(0.0f, height));
}

extern "C" void ui_plot_stacked(const char *label, const float *values, int series, int count, float hi, float height,
                                const float (*colors)[3])
{
    ImGui::TextUnformatted(label);
    ImVec2 size(ImGui::GetContentRegionAvail().x, height);
    ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImDrawList *dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), IM_COL32(20, 20, 24, 200));
    if (count > 0 && hi > 0.0f) {
        float bar_w = size.x / (float)count;
        for (int i = 0; i < count; i++) {
            float y = p0.y + size.y;
            for (int s = 0; s < series; s++) {
                float h = values[s * count + i] / hi * size.y;
                if (h <= 0.0f)
                    continue;
                float top = y - h < p0.y ? p0.y : y - h;
                ImU32 col = IM_COL32((int)(colors[s][0] * 255), (int)(colors[s][1] * 255), (int)(colors[s][2] * 255),
                                     255);
                dl->AddRectFilled(ImVec2(p0.x + i * bar_w, top), ImVec2(p0.x + (i + 1) * bar_w, y), col);
                y = top;
            }
        }
    }
    ImGui::Dummy(size);
}

extern "C" void ui_begin_disabled(bool disabled) { ImGui::BeginDisabled(disabled); }
extern "C" void ui_end_disabled(void) { ImGui::EndDisabled(); }
extern "C" void ui_push_id(int id) { ImGui::PushID(id); }
extern "C" void ui_pop_id(void) { ImGui::PopID(); }
extern "C" void ui_push_item_width(float width) { ImGui::PushItemWidth(width); }
extern "C" void ui_pop_item_width(void) { ImGui::PopItemWidth(); }
extern "C" float ui_content_width(void) { return ImGui::GetContentRegionAvail().x; }
